/**
 * A billing pass that SIGKILLs itself at one point of a charge (CRASH_AT), for the crash test:
 * the real pass, charger, lock and SuiChain, the chain wrapped only to die at the chosen call.
 * With CRASH_CHANGE (JSON `{organizationId, tier, allowanceId}`) it is an upgrade `when: now`
 * instead (the real BillingService.change, as a server process answering it would run it).
 *   sign:before    the pending charge row is written, nothing built
 *   sign:after     the charge is built and signed, its digest not stored yet
 *   submit:before  the digest and bytes are stored, nothing sent
 *   submit:after   the chain has executed the charge, the database does not know yet
 */
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { Network } from '../../services/core/index.js';
import { BillingPass, BillingService, Charger, ChargingLock, SuiChain, type BillingNetwork, type Chain } from '../../services/billing/index.js';
import { openRuntime, readConfig } from '../../services/cli/runtime.js';
import { closeUpstreamSet, upstreamSetFromConfig } from '../../services/upstream/index.js';

const crashAt = process.env['CRASH_AT'];
const die = (point: string) => {
  if (point === crashAt) process.kill(process.pid, 'SIGKILL');
};

const config = readConfig();
const runtime = await openRuntime(config, { migrate: false });
const upstreams = upstreamSetFromConfig(config, runtime.logger);
const real = new SuiChain({
  clients: new Map([...upstreams].map(([network, upstream]) => [network, upstream.grpc] as const)),
  settings: new Map(Object.entries(config.billing.networks) as [Network, BillingNetwork][]),
  sponsor: Ed25519Keypair.fromSecretKey(decodeSuiPrivateKey(config.billing.sponsorKey!).secretKey),
});
const chain: Chain = Object.assign(Object.create(real) as Chain, {
  spender: real.spender,
  networks: () => real.networks(),
  settings: (network: Network) => real.settings(network),
  allowance: (network: Network, id: string) => real.allowance(network, id),
  addressBalance: (network: Network, owner: string, coin: string) => real.addressBalance(network, owner, coin),
  lookup: (network: Network, digest: string) => real.lookup(network, digest),
  isSpent: (network: Network, charge: Parameters<Chain['isSpent']>[1]) => real.isSpent(network, charge),
  async signCharge(network: Network, request: Parameters<Chain['signCharge']>[1]) {
    die('sign:before');
    const signed = await real.signCharge(network, request);
    die('sign:after');
    return signed;
  },
  async submit(network: Network, charge: Parameters<Chain['submit']>[1]) {
    die('submit:before');
    const outcome = await real.submit(network, charge);
    die('submit:after');
    return outcome;
  },
});
const lock = new ChargingLock(runtime.database);
const change = process.env['CRASH_CHANGE'];
if (change) {
  const { organizationId, tier, allowanceId } = JSON.parse(change) as { organizationId: string; tier: string; allowanceId: string };
  const view = await new BillingService({ db: runtime.database.db, clock: runtime.clock, chain, lock }).change(organizationId, { tier, when: 'now', allowanceId });
  console.log(JSON.stringify(view));
} else {
  const charger = new Charger({ db: runtime.database.db, chain, clock: runtime.clock });
  const pass = new BillingPass({ db: runtime.database.db, clock: runtime.clock, chain, charger });
  console.log(JSON.stringify(await lock.tryRun(() => pass.run({ organizationId: config.billing.organizationId }))));
}
await closeUpstreamSet(upstreams);
await runtime.database.close();
