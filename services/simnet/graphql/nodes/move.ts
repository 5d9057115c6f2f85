import type { JsonValue, MoveDatatypeRecord, MoveFunctionRecord, MoveModuleRecord } from '../../ledger/index.js';
import type { RequestContext } from '../context.js';
import { badUserInput } from '../errors.js';
import { LIMITS, pageLimits } from '../limits.js';
import { pageFromArgs, paginate } from '../pagination.js';
import type { Connection, PageArgs } from '../pagination.js';
import { canonicalType, parseOpenSignature, parseTypeSignature, typeRepr } from '../move-types.js';
import type { OpenSignature, SignatureBody } from '../move-types.js';
import { AddressNode, PackageNode } from './objects.js';

/** Does every datatype a type mentions exist on chain? */
function typeExists(ctx: RequestContext, type: SignatureBody): boolean {
  if (typeof type === 'string' || 'typeParameter' in type) return true;
  if ('vector' in type) return typeExists(ctx, type.vector);
  const { package: pkg, module, type: name, typeParameters } = type.datatype;
  const exists = ctx.ledger.getPackage(pkg)?.modules.find((m) => m.name === module)?.datatypes.some((d) => d.name === name) ?? false;
  return exists && typeParameters.every((t) => typeExists(ctx, t));
}

/** `MoveType`: a concrete type, shown with full addresses. */
export class MoveTypeNode {
  /** `Query.type`: null when a type it mentions does not exist, as in Sui. */
  static lookup(ctx: RequestContext, type: string): MoveTypeNode | null {
    const repr = canonicalType(type);
    return typeExists(ctx, parseTypeSignature(repr)) ? new MoveTypeNode(repr) : null;
  }

  readonly __typename = 'MoveType';
  constructor(readonly repr: string) {}

  signature(): SignatureBody {
    return parseTypeSignature(this.repr);
  }

  /** The value layout, from the ledger's package descriptions; null if a type is unknown. */
  layout(_args: unknown, ctx: RequestContext): Layout | null {
    return typeLayout(ctx, parseTypeSignature(this.repr), { nodes: 0 }, 0);
  }

  /** Declared abilities, narrowed by the type arguments as Move does for generic types. */
  abilities(_args: unknown, ctx: RequestContext): string[] {
    return [...typeAbilities(ctx, parseTypeSignature(this.repr))].map((a) => ABILITY[a]);
  }
}

type Layout = string | { vector: Layout } | { struct: { type: string; fields: LayoutField[] } } | { enum: { type: string; variants: { name: string; fields: LayoutField[] }[] } };
interface LayoutField {
  name: string;
  layout: Layout;
}

function substitute(type: SignatureBody, args: readonly SignatureBody[]): SignatureBody {
  if (typeof type === 'string') return type;
  if ('typeParameter' in type) return args[type.typeParameter] ?? type;
  if ('vector' in type) return { vector: substitute(type.vector, args) };
  return { datatype: { ...type.datatype, typeParameters: type.datatype.typeParameters.map((t) => substitute(t, args)) } };
}

/** Sui's layout of a concrete type, bounded by its limits on nesting and datatypes visited. */
function typeLayout(ctx: RequestContext, type: SignatureBody, budget: { nodes: number }, depth: number): Layout | null {
  if (depth > LIMITS.maxMoveValueDepth) throw badUserInput(`Type layout is nested deeper than ${LIMITS.maxMoveValueDepth}`);
  if (typeof type === 'string') return type;
  if ('typeParameter' in type) throw badUserInput('A layout needs a concrete type, without type parameters');
  if ('vector' in type) {
    const inner = typeLayout(ctx, type.vector, budget, depth + 1);
    return inner === null ? null : { vector: inner };
  }
  if (++budget.nodes > LIMITS.maxTypeNodes) throw badUserInput(`Type layout needs more than ${LIMITS.maxTypeNodes} datatypes`);
  const { package: pkg, module, type: name, typeParameters } = type.datatype;
  const record = ctx.ledger.getPackage(pkg)?.modules.find((m) => m.name === module)?.datatypes.find((d) => d.name === name);
  if (!record) return null;
  const fieldsOf = (fields: readonly { name: string; type: string }[]): LayoutField[] | null => {
    const out: LayoutField[] = [];
    for (const field of fields) {
      const layout = typeLayout(ctx, substitute(parseTypeSignature(field.type), typeParameters), budget, depth + 1);
      if (layout === null) return null;
      out.push({ name: field.name, layout });
    }
    return out;
  };
  const repr = typeRepr(type);
  if (record.kind === 'struct') {
    const fields = fieldsOf(record.fields);
    return fields && { struct: { type: repr, fields } };
  }
  const variants = [];
  for (const variant of record.variants ?? []) {
    const fields = fieldsOf(variant.fields);
    if (!fields) return null;
    variants.push({ name: variant.name, fields });
  }
  return { enum: { type: repr, variants } };
}

type Ability = 'copy' | 'drop' | 'store' | 'key';
const PRIMITIVE_ABILITIES: ReadonlySet<Ability> = new Set(['copy', 'drop', 'store']);

function typeAbilities(ctx: RequestContext, type: SignatureBody): ReadonlySet<Ability> {
  if (typeof type === 'string') return PRIMITIVE_ABILITIES;
  if ('vector' in type) return new Set([...typeAbilities(ctx, type.vector)].filter((a) => a !== 'key'));
  if ('typeParameter' in type) return new Set();
  const { package: pkg, module, type: name, typeParameters } = type.datatype;
  const record = ctx.ledger.getPackage(pkg)?.modules.find((m) => m.name === module)?.datatypes.find((d) => d.name === name);
  if (!record) return new Set();
  const args = typeParameters.flatMap((arg, i) => (record.typeParameters[i]?.isPhantom ? [] : [typeAbilities(ctx, arg)]));
  // A generic struct has an ability if every non-phantom argument has it (`store` for `key`).
  return new Set(record.abilities.filter((a) => args.every((arg) => arg.has(a === 'key' ? 'store' : a))));
}

export interface DisplayRendering {
  output: Readonly<Record<string, string>> | null;
  errors: Readonly<Record<string, string>> | null;
}

/** `MoveValue`: a typed value with its BCS and its JSON rendering. */
export class MoveValueNode {
  readonly __typename = 'MoveValue';
  readonly type: MoveTypeNode;

  constructor(
    type: string,
    readonly bcs: Uint8Array | null,
    readonly json: JsonValue | null,
    readonly display: DisplayRendering | null = null,
  ) {
    this.type = new MoveTypeNode(type);
  }

  asAddress(_args: unknown, ctx: RequestContext): AddressNode | null {
    return this.type.repr === 'address' && typeof this.json === 'string' ? new AddressNode(ctx, this.json) : null;
  }
}

/** `OpenMoveType`: a type that may mention type parameters or be a reference. */
export class OpenMoveTypeNode {
  readonly __typename = 'OpenMoveType';
  constructor(readonly repr: string) {}

  signature(): OpenSignature {
    return parseOpenSignature(this.repr);
  }
}

const ABILITY = { copy: 'COPY', drop: 'DROP', store: 'STORE', key: 'KEY' } as const;
const VISIBILITY = { public: 'PUBLIC', private: 'PRIVATE', friend: 'FRIEND' } as const;

export class MoveModuleNode {
  readonly __typename = 'MoveModule';
  readonly #ctx: RequestContext;
  readonly #packageId: string;
  readonly #record: MoveModuleRecord | undefined;

  constructor(ctx: RequestContext, packageId: string, readonly name: string) {
    this.#ctx = ctx;
    this.#packageId = packageId;
    this.#record = ctx.ledger.getPackage(packageId)?.modules.find((module) => module.name === name);
  }

  get fullyQualifiedName(): string {
    return `${this.#packageId}::${this.name}`;
  }

  package(): PackageNode | null {
    return PackageNode.forPackage(this.#ctx, this.#packageId);
  }

  /**
   * A function the module calls or aborts in: described when the ledger's package lists it,
   * otherwise known only by its name and module.
   */
  calledFunction(name: string): object {
    return this.function({ name }) ?? { __typename: 'MoveFunction', name, module: this, fullyQualifiedName: `${this.fullyQualifiedName}::${name}` };
  }

  function({ name }: { name: string }): MoveFunctionNode | null {
    const record = this.#record?.functions.find((fn) => fn.name === name);
    return record ? new MoveFunctionNode(this, record) : null;
  }

  functions(args: PageArgs): Connection<MoveFunctionNode> {
    const records = [...(this.#record?.functions ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
    return paginate(records, (fn) => fn.name, pageFromArgs(args, pageLimits('MoveModule', 'functions')), (fn) => new MoveFunctionNode(this, fn));
  }

  #datatypes(kind?: 'struct' | 'enum'): MoveDatatypeRecord[] {
    return (this.#record?.datatypes ?? []).filter((d) => kind === undefined || d.kind === kind).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  datatype({ name }: { name: string }): MoveDatatypeNode | null {
    const record = this.#datatypes().find((d) => d.name === name);
    return record ? new MoveDatatypeNode(this, record, 'MoveDatatype') : null;
  }

  datatypes(args: PageArgs): Connection<MoveDatatypeNode> {
    return paginate(this.#datatypes(), (d) => d.name, pageFromArgs(args, pageLimits('MoveModule', 'datatypes')), (d) => new MoveDatatypeNode(this, d, 'MoveDatatype'));
  }

  struct({ name }: { name: string }): MoveDatatypeNode | null {
    const record = this.#datatypes('struct').find((d) => d.name === name);
    return record ? new MoveDatatypeNode(this, record, 'MoveStruct') : null;
  }

  structs(args: PageArgs): Connection<MoveDatatypeNode> {
    return paginate(this.#datatypes('struct'), (d) => d.name, pageFromArgs(args, pageLimits('MoveModule', 'structs')), (d) => new MoveDatatypeNode(this, d, 'MoveStruct'));
  }

  enum({ name }: { name: string }): MoveDatatypeNode | null {
    const record = this.#datatypes('enum').find((d) => d.name === name);
    return record ? new MoveDatatypeNode(this, record, 'MoveEnum') : null;
  }

  enums(args: PageArgs): Connection<MoveDatatypeNode> {
    return paginate(this.#datatypes('enum'), (d) => d.name, pageFromArgs(args, pageLimits('MoveModule', 'enums')), (d) => new MoveDatatypeNode(this, d, 'MoveEnum'));
  }
}

export class MoveFunctionNode {
  readonly __typename = 'MoveFunction';
  readonly name: string;
  readonly visibility: string;
  readonly isEntry: boolean;

  constructor(
    readonly module: MoveModuleNode,
    readonly record: MoveFunctionRecord,
  ) {
    this.name = record.name;
    this.visibility = VISIBILITY[record.visibility];
    this.isEntry = record.isEntry;
  }

  get fullyQualifiedName(): string {
    return `${this.module.fullyQualifiedName}::${this.name}`;
  }

  typeParameters() {
    return this.record.typeParameters.map((p) => ({ constraints: p.constraints.map((c) => ABILITY[c]) }));
  }

  parameters(): OpenMoveTypeNode[] {
    return this.record.parameters.map((p) => new OpenMoveTypeNode(p));
  }

  return(): OpenMoveTypeNode[] {
    return this.record.returns.map((p) => new OpenMoveTypeNode(p));
  }
}

/** `MoveDatatype`, `MoveStruct` and `MoveEnum` share one shape here. */
export class MoveDatatypeNode {
  readonly name: string;

  constructor(
    readonly module: MoveModuleNode,
    readonly record: MoveDatatypeRecord,
    readonly __typename: 'MoveDatatype' | 'MoveStruct' | 'MoveEnum',
  ) {
    this.name = record.name;
  }

  get fullyQualifiedName(): string {
    return `${this.module.fullyQualifiedName}::${this.name}`;
  }

  abilities(): string[] {
    return this.record.abilities.map((a) => ABILITY[a]);
  }

  typeParameters() {
    return this.record.typeParameters.map((p) => ({ constraints: p.constraints.map((c) => ABILITY[c]), isPhantom: p.isPhantom }));
  }

  fields() {
    return this.record.fields.map((f) => ({ name: f.name, type: new OpenMoveTypeNode(f.type) }));
  }

  variants() {
    return (this.record.variants ?? []).map((v) => ({
      name: v.name,
      fields: v.fields.map((f) => ({ name: f.name, type: new OpenMoveTypeNode(f.type) })),
    }));
  }

  asMoveStruct(): MoveDatatypeNode | null {
    return this.record.kind === 'struct' ? new MoveDatatypeNode(this.module, this.record, 'MoveStruct') : null;
  }

  asMoveEnum(): MoveDatatypeNode | null {
    return this.record.kind === 'enum' ? new MoveDatatypeNode(this.module, this.record, 'MoveEnum') : null;
  }
}
