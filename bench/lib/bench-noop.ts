import type { App } from '../../services/route-contract/index.js';
import { AUTH_ME_LIKE_BODY, AUTH_ME_LIKE_SCHEMA } from './auth-me-body.js';

/** `GET /bench/noop` on the gateway: no key, no database, auth/me's body and response schema. */
export function registerBenchNoop(app: App): void {
  app.get('/bench/noop', { config: { auth: 'none' }, schema: { hide: true, response: { 200: AUTH_ME_LIKE_SCHEMA } } }, async () => AUTH_ME_LIKE_BODY);
}
