export { jsonRpcCapability, type JsonRpcCapabilityOptions } from './capability.js';
export { JsonRpcDispatcher, DEFAULT_MAX_BATCH_SIZE, type DispatchResult, type JsonRpcDispatcherOptions, type ParsedBody } from './dispatcher.js';
export type { JsonRpcCall, JsonRpcErrorObject, JsonRpcId, JsonRpcResponse } from './envelope.js';
export { OPENRPC_DOCUMENT, OPENRPC_METHODS, OpenRpcSchemas, type OpenRpcMethodSpec, type OpenRpcParam } from './openrpc.js';
export { invalidParams } from './params.js';
export { JSONRPC_ERROR, JsonRpcError, type JsonRpcContext, type JsonRpcCursors, type JsonRpcMethod } from './method.js';
export { jsonRpcMethodTable, withMethodTable } from './method-table.js';
export { READ_METHODS } from './methods/reads/index.js';
export { WIRE_EXCEPTIONS, resultSchemaOf, withWireExceptions, type WireException } from './wire-exceptions.js';
