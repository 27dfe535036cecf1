/**
 * ajv loads only when a record's drift is read, never when `listen` starts (its start is measured:
 * bench/). A fresh process builds a listen node with its console, counts the ajv modules loaded, then
 * reads a drift, which must load them: the count can fail both ways.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const script = (db: string) => `
import { createRequire } from 'node:module';
const { buildApp } = await import(${JSON.stringify(`${ROOT}src/app/build-app.ts`)});
const { testListenConfig } = await import(${JSON.stringify(`${ROOT}test/helpers/listen-config.ts`)});
const app = await buildApp(testListenConfig(${JSON.stringify(db)}, { console: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null } }));
const cache = createRequire(import.meta.url).cache;
const ajv = () => Object.keys(cache).filter((k) => k.includes('/node_modules/ajv/')).length;
const atStart = ajv();
await app.close();
(await import(${JSON.stringify(`${ROOT}src/runtime/trigger-drift.ts`)})).driftOf({ type: 'trustcenter.access_requested', data: {} });
process.stdout.write(JSON.stringify({ atStart, afterRead: ajv() }));
`;

it('is not loaded by a listen node with its console, and is by the first drift read', async () => {
  const { dir, remove } = tempDir();
  try {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(`${dir}/h.db`)], { cwd: ROOT }, (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)));
    });
    const counts = JSON.parse(out) as { atStart: number; afterRead: number };
    expect(counts.atStart).toBe(0);
    expect(counts.afterRead).toBeGreaterThan(0);
  } finally {
    remove();
  }
});
