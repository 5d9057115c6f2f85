import { normalizeSuiAddress } from '@mysten/sui/utils';
import { badUserInput } from './errors.js';

/**
 * Move type strings (as the ledger stores them, e.g. `&mut 0x…2::coin::Coin<T0>`) turned into the
 * JSON shapes of Sui's `MoveTypeSignature` / `OpenMoveTypeSignature` scalars.
 */
export type SignatureBody =
  | string
  | { vector: SignatureBody }
  | { datatype: { package: string; module: string; type: string; typeParameters: SignatureBody[] } }
  | { typeParameter: number };

export interface OpenSignature {
  ref: '&' | '&mut' | null;
  body: SignatureBody;
}

const PRIMITIVES = new Set(['address', 'bool', 'u8', 'u16', 'u32', 'u64', 'u128', 'u256', 'signer']);

class TypeParser {
  #pos = 0;
  constructor(readonly text: string) {}

  parse(): SignatureBody {
    const body = this.#type();
    this.#space();
    if (this.#pos !== this.text.length) throw this.#fail();
    return body;
  }

  #fail() {
    return badUserInput(`Invalid type: ${this.text}`);
  }

  #space() {
    while (this.text[this.#pos] === ' ') this.#pos++;
  }

  #word(): string {
    this.#space();
    const match = /^[A-Za-z0-9_]+/.exec(this.text.slice(this.#pos));
    if (!match) throw this.#fail();
    this.#pos += match[0].length;
    return match[0];
  }

  #eat(token: string): boolean {
    this.#space();
    if (this.text.startsWith(token, this.#pos)) {
      this.#pos += token.length;
      return true;
    }
    return false;
  }

  #arguments(): SignatureBody[] {
    const args: SignatureBody[] = [];
    if (!this.#eat('<')) return args;
    do args.push(this.#type());
    while (this.#eat(','));
    if (!this.#eat('>')) throw this.#fail();
    return args;
  }

  #type(): SignatureBody {
    const head = this.#word();
    if (head === 'vector') {
      const [inner, ...rest] = this.#arguments();
      if (!inner || rest.length > 0) throw this.#fail();
      return { vector: inner };
    }
    if (PRIMITIVES.has(head)) return head;
    const typeParameter = /^T([0-9]+)$/.exec(head);
    if (typeParameter && !this.text.startsWith('::', this.#pos)) return { typeParameter: Number(typeParameter[1]) };
    if (!this.#eat('::')) throw this.#fail();
    const module = this.#word();
    if (!this.#eat('::')) throw this.#fail();
    const type = this.#word();
    return {
      datatype: { package: normalizeSuiAddress(head), module, type, typeParameters: this.#arguments() },
    };
  }
}

export function parseTypeSignature(type: string): SignatureBody {
  return new TypeParser(type.trim()).parse();
}

export function parseOpenSignature(signature: string): OpenSignature {
  const text = signature.trim();
  if (text.startsWith('&mut ')) return { ref: '&mut', body: parseTypeSignature(text.slice(5)) };
  if (text.startsWith('&')) return { ref: '&', body: parseTypeSignature(text.slice(1)) };
  return { ref: null, body: parseTypeSignature(text) };
}

/**
 * The canonical string of a parsed type, as `MoveType.repr` shows it: full addresses and, as in
 * Move's canonical display (and `normalizeStructTag`), no space after the commas.
 */
export function typeRepr(body: SignatureBody): string {
  if (typeof body === 'string') return body;
  if ('vector' in body) return `vector<${typeRepr(body.vector)}>`;
  if ('typeParameter' in body) return `T${body.typeParameter}`;
  const { package: pkg, module, type, typeParameters } = body.datatype;
  const args = typeParameters.length > 0 ? `<${typeParameters.map(typeRepr).join(',')}>` : '';
  return `${pkg}::${module}::${type}${args}`;
}

export function canonicalType(type: string): string {
  return typeRepr(parseTypeSignature(type));
}
