#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx's loader), so every role starts right after `npm ci`
// with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../services/cli/index.ts');
await main(process.argv.slice(2));
