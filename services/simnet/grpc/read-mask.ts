import type { FieldInfo, IMessageType } from '@protobuf-ts/runtime';
import type { GrpcTypes } from '@mysten/sui/grpc';

type FieldMask = NonNullable<GrpcTypes.GetObjectRequest['readMask']>;
import { invalidArgument } from './errors.js';

/**
 * A parsed `google.protobuf.FieldMask` as the Sui node applies it: a path selects a field and
 * everything under it; a repeated message field's sub-paths apply to each element.
 */
export class ReadMask {
  readonly #children = new Map<string, ReadMask>();
  #all = false;

  static parse(mask: FieldMask | undefined, defaults: string): ReadMask {
    const paths = mask && mask.paths.length > 0 ? mask.paths : defaults.split(',');
    const root = new ReadMask();
    for (const raw of paths) {
      const path = raw.trim();
      if (path === '') continue;
      if (path === '*') {
        root.#all = true;
        continue;
      }
      let node: ReadMask = root;
      for (const part of path.split('.')) {
        if (!/^[a-z_][a-z0-9_]*$/.test(part)) throw invalidArgument(`invalid read_mask path: ${path}`);
        let child = node.#children.get(part);
        if (!child) {
          child = new ReadMask();
          node.#children.set(part, child);
        }
        node = child;
      }
      node.#all = true;
    }
    return root;
  }

  /** The whole field at this node is selected. */
  get all(): boolean {
    return this.#all;
  }

  /** Does the mask select `field` or something under it? */
  has(field: string): boolean {
    return this.#all || this.#children.has(field);
  }

  /** The mask for a sub-message (selects everything if this node or the field is fully selected). */
  sub(field: string): ReadMask {
    if (this.#all) return ReadMask.everything();
    return this.#children.get(field) ?? new ReadMask();
  }

  /** Checks every path names a field of `type`; throws INVALID_ARGUMENT otherwise. */
  validate(type: IMessageType<object>, prefix = ''): this {
    for (const [name, child] of this.#children) {
      const field = type.fields.find((candidate) => candidate.name === name);
      if (!field) throw invalidArgument(`invalid read_mask path: ${prefix}${name}`);
      if (child.#children.size > 0) {
        const messageType = nestedMessageType(field);
        if (!messageType) throw invalidArgument(`invalid read_mask path: ${prefix}${name} has no sub-fields`);
        child.validate(messageType, `${prefix}${name}.`);
      }
    }
    return this;
  }

  static everything(): ReadMask {
    const mask = new ReadMask();
    mask.#all = true;
    return mask;
  }
}

function nestedMessageType(field: FieldInfo): IMessageType<object> | undefined {
  if (field.kind === 'message') return field.T() as IMessageType<object>;
  if (field.kind === 'map' && field.V.kind === 'message') return field.V.T() as IMessageType<object>;
  return undefined;
}

/** Returns a copy of `message` holding only the fields `mask` selects (protobuf-ts shapes). */
export function applyReadMask<T extends object>(type: IMessageType<T>, message: T, mask: ReadMask): T {
  if (mask.all) return message;
  const source = message as Record<string, unknown>;
  const out = type.create() as Record<string, unknown>;
  for (const field of type.fields) {
    if (!mask.has(field.name)) continue;
    const sub = mask.sub(field.name);
    if (field.oneof) {
      const group = source[field.oneof] as { oneofKind?: string } & Record<string, unknown>;
      if (group?.oneofKind !== field.localName) continue;
      const value = group[field.localName];
      const messageType = nestedMessageType(field);
      out[field.oneof] = { oneofKind: field.localName, [field.localName]: messageType && !sub.all ? applyReadMask(messageType, value as object, sub) : value };
      continue;
    }
    const value = source[field.localName];
    if (value === undefined) continue;
    const messageType = field.kind === 'message' ? nestedMessageType(field) : undefined;
    if (!messageType || sub.all) {
      out[field.localName] = value;
    } else if (Array.isArray(value)) {
      out[field.localName] = value.map((item: object) => applyReadMask(messageType, item, sub));
    } else {
      out[field.localName] = applyReadMask(messageType, value as object, sub);
    }
  }
  return out as T;
}
