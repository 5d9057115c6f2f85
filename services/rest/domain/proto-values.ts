// Moved down to services/upstream/proto-values.ts (shared with the JSON-RPC methods); REST keeps importing it from here.
export * from '../../upstream/proto-values.js';
