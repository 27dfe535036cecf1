#!/usr/bin/env node
// Runs the bundled CLI (built by `npm install` through the `prepare` script: scripts/bundle-cli.mjs).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/bin/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(compiled))) {
  process.stderr.write('hookrelay: the build (dist/bin/cli.js) is missing. Run `npm install` (or `npm run build`) in the hookrelay folder first.\n');
  process.exit(1);
}
await import(compiled.href);
