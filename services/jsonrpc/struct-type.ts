import { normalizeStructTag } from '@mysten/sui/utils';
import { invalidParams } from './params.js';

/**
 * A Move struct type as a Sui node reads one from a JSON-RPC param (sui-types'
 * `parse_sui_struct_tag`, move-core-types' type parser): tokens, then `address::module::Name`
 * with optional `<type, ...>`, nothing left over. The SDK's `normalizeStructTag` is laxer (it
 * keeps a trailing NUL, a space or a `>` as part of the name), so an unchecked coin type was sent
 * upstream and echoed back in the answer.
 *
 * `structTypeError` returns the node's reason, in its words: `Invalid struct type: <type>. Got
 * error: <why>` (`unrecognized token: ...`, `Expected end of token stream. Got: ...`, `unexpected
 * end of tokens`, `expected token ..., got ...`). One difference: the type is quoted with control
 * characters escaped (`\u0000`), where the node echoes them raw.
 */

type Token = { kind: 'name' | 'address' | '::' | '<' | '>' | ','; text: string };

const PRIMITIVES = new Set(['bool', 'u8', 'u16', 'u32', 'u64', 'u128', 'u256', 'address', 'signer']);
const TOKEN = /^(?:(\s+)|(::)|([<>,])|(0x[0-9a-fA-F]+|[0-9]+)|([a-zA-Z_][a-zA-Z0-9_]*))/;

class ParseFailure extends Error {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (let rest = text; rest.length > 0;) {
    const match = TOKEN.exec(rest);
    if (!match) throw new ParseFailure(`unrecognized token: ${rest}`);
    const [whole, space, separator, punctuation, address] = match;
    if (!space) {
      const kind = separator ?? punctuation ?? (address === undefined ? 'name' : 'address');
      tokens.push({ kind: kind as Token['kind'], text: whole });
    }
    rest = rest.slice(whole.length);
  }
  return tokens;
}

class Parser {
  #at = 0;
  constructor(readonly tokens: Token[]) {}

  next(): Token {
    const token = this.tokens[this.#at++];
    if (!token) throw new ParseFailure('unexpected end of tokens');
    return token;
  }

  peek(): Token | undefined {
    return this.tokens[this.#at];
  }

  expect(kind: Token['kind']): Token {
    const token = this.next();
    if (token.kind !== kind) throw new ParseFailure(`expected token ${kind}, got ${token.text}`);
    return token;
  }

  /** One type; true when it is a struct type. */
  type(): boolean {
    const first = this.next();
    if (first.kind === 'name' && PRIMITIVES.has(first.text)) return false;
    if (first.kind === 'name' && first.text === 'vector') {
      this.expect('<');
      this.type();
      this.expect('>');
      return false;
    }
    if (first.kind !== 'name' && first.kind !== 'address') throw new ParseFailure(`unexpected token ${first.text}, expected type`);
    this.expect('::');
    this.expect('name');
    this.expect('::');
    this.expect('name');
    if (this.peek()?.kind === '<') {
      this.next();
      this.type();
      while (this.peek()?.kind === ',') {
        this.next();
        if (this.peek()?.kind === '>') break;
        this.type();
      }
      this.expect('>');
    }
    return true;
  }
}

/** Why `text` is not a struct type, in the node's words; undefined when it is one. */
export function structTypeError(text: string): string | undefined {
  const shown = JSON.stringify(text).slice(1, -1);
  let struct: boolean;
  try {
    const parser = new Parser(tokenize(text));
    struct = parser.type();
    const left = parser.peek();
    if (left) throw new ParseFailure(`Expected end of token stream. Got: ${left.text}`);
  } catch (error) {
    if (!(error instanceof ParseFailure)) throw error;
    return `Invalid struct type: ${shown}. Got error: ${JSON.stringify(error.message).slice(1, -1)}`;
  }
  return struct ? undefined : `Invalid struct type: ${shown}`;
}

/** A struct type param as a node reads one: normalized, or -32602 with the node's reason. */
export function structTypeParam(text: string): string {
  const error = structTypeError(text);
  if (error) throw invalidParams(error);
  return normalizeStructTag(text);
}
