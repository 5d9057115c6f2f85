/**
 * Where the conformance suite does not hold results to Sui's OpenRPC document as written: the
 * gateway's one list (services/jsonrpc/wire-exceptions.ts, also applied to param validation),
 * re-exported here so the suite and its readers find it next to the cases.
 */
export { WIRE_EXCEPTIONS } from '../../services/jsonrpc/index.js';
