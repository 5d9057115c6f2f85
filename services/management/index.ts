import type { App, AppDeps } from '../http/index.js';
import { registerGetAccount } from './routes/account.get.js';
import { registerAuthMe } from './routes/auth-me.js';
import { registerCreateKey } from './routes/keys.create.js';
import { registerDisableKey } from './routes/keys.disable.js';
import { registerListKeys } from './routes/keys.list.js';
import { registerUpdateKey } from './routes/keys.update.js';
import { registerCreateProject } from './routes/projects.create.js';
import { registerListProjects } from './routes/projects.list.js';
import { registerWalletChallenge } from './routes/wallet.challenge.js';
import { registerWalletRegister } from './routes/wallet.register.js';

export { describeAccount, type ManagementAccount } from './account.js';

/** The management API (spec: "Management API"), registered once per network. */
export function registerManagement(app: App, deps: AppDeps): void {
  registerAuthMe(app);
  registerListKeys(app, deps);
  registerCreateKey(app, deps);
  registerUpdateKey(app, deps);
  registerDisableKey(app, deps);
  registerListProjects(app, deps);
  registerCreateProject(app, deps);
  registerGetAccount(app, deps);
  registerWalletChallenge(app, deps);
  registerWalletRegister(app, deps);
}
