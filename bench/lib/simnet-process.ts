import { startSimnet } from '../../services/simnet/index.js';

/** simnet in its own process, so the upstream's CPU is not the benchmarked process's CPU. Prints its URLs as one JSON line. */
const simnet = await startSimnet({ seed: 'bench', transactionsPerCheckpoint: 0 });
const alice = simnet.accounts.find((a) => a.label === 'alice')!.address;
console.log(JSON.stringify({ grpcUrl: simnet.grpcUrl, graphqlUrl: simnet.graphqlUrl, owner: alice }));
const stop = () => void simnet.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
