// The command's entry point: `node dist/services/cli/suigw.js <role> [options]` runs the build
// (the container image's ENTRYPOINT); bin/suigw.js runs this same file from source through tsx.
import { main } from './index.js';

await main(process.argv.slice(2));
