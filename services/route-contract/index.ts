export type { App, Capability, RouteAuth, RouteProtocol } from './types.js';
export { validationFailure, type FieldCodes } from './validation.js';
export { cancelRequestUpstream, requestUpstream, watchRequest } from './request-binding.js';
export * from './cors-headers.js';
export { caller } from './caller.js';
