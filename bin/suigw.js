#!/usr/bin/env node
// Runs the TypeScript CLI from source (tsx's loader), so every role starts right after `npm ci`
// with no build step. The production build runs `node dist/services/cli/suigw.js` instead.
import { register } from 'tsx/esm/api';

register();
await import('../services/cli/suigw.ts');
