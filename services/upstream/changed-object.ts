import type { GrpcTypes } from '@mysten/sui/grpc';

// sui.rpc.v2 ChangedObject enums (InputObjectState, OutputObjectState, IdOperation).
const INPUT_DOES_NOT_EXIST = 1;
const INPUT_EXISTS = 2;
const OUTPUT_DOES_NOT_EXIST = 1;
const OUTPUT_OBJECT_WRITE = 2;
const OUTPUT_PACKAGE_WRITE = 3;
const ID_NONE = 1;
const ID_CREATED = 2;
const ID_DELETED = 3;

/**
 * What a transaction did to one object, as a node's `ObjectChange` tells it. `accumulator` is an
 * address-balance write (input absent, output an accumulator write): no object a client holds.
 */
export type ChangeKind = 'created' | 'mutated' | 'unwrapped' | 'deleted' | 'wrapped' | 'unwrappedThenDeleted' | 'accumulator';

/** The kind of a v2 `ChangedObject`, from its input state, output state and id operation. */
export function changeKind(change: GrpcTypes.ChangedObject): ChangeKind {
  const written = change.outputState === OUTPUT_OBJECT_WRITE || change.outputState === OUTPUT_PACKAGE_WRITE;
  if (!written && change.outputState !== OUTPUT_DOES_NOT_EXIST) return 'accumulator';
  if (change.idOperation === ID_CREATED) return 'created';
  if (change.idOperation === ID_DELETED) return change.inputState === INPUT_EXISTS ? 'deleted' : 'unwrappedThenDeleted';
  if (change.idOperation === ID_NONE && change.inputState === INPUT_DOES_NOT_EXIST && written) return 'unwrapped';
  if (change.inputState === INPUT_EXISTS && !written) return 'wrapped';
  return 'mutated';
}

/** Whether the change wrote a Move package (a publish, an upgrade, a system package replaced in place). */
export function isPackageWrite(change: GrpcTypes.ChangedObject): boolean {
  return change.outputState === OUTPUT_PACKAGE_WRITE;
}
