export type { App, Capability, RouteAuth } from './types.js';
export { validationFailure, type FieldCodes } from './validation.js';
