import type { App, Capability } from '../route-contract/index.js';
import type { ManagementDeps } from './deps.js';
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
export type { ManagementDeps } from './deps.js';
export { WalletAllowance } from './wallet-allowance.js';
export { usageCapability, type UsageRouteDeps } from './routes/usage.get.js';

/** The management API (spec: "Management API"), registered once per network. */
export function managementCapability(deps: ManagementDeps): Capability {
  return (app: App) => registerManagement(app, deps);
}

function registerManagement(app: App, deps: ManagementDeps): void {
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
