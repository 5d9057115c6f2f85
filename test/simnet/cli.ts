// `node bin/run-ts.js test/simnet/cli.ts --grpc-port 9000 --http-port 9100 --seed dev`
import { runSimnetCli } from './index.js';

await runSimnetCli(process.argv.slice(2));
