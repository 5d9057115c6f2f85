export { jsonRpcWebSocketCapability, registerJsonRpcWebSocket, type JsonRpcWebSocketOptions } from './websocket-route.js';
export { CheckpointFeed, CheckpointFeeds } from './checkpoint-feed.js';
export { SUBSCRIPTION_METHODS } from './session.js';
export { OrganizationShares } from './organization-shares.js';
