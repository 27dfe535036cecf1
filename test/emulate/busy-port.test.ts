/** A busy port fails `emulate`'s start before anything is made: no lock file, keys or database in the data folder. */
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildEmulator } from '../../src/app/build-emulator.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('emulate on a busy port', () => {
  it('fails naming the port, and leaves the data folder empty', async () => {
    const { dir, remove } = tempDir('hookrelay-emulate-');
    cleanups.push(remove);
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    cleanups.push(() => new Promise((r) => holder.close(r)));
    const port = (holder.address() as AddressInfo).port;
    const start = buildEmulator({ port, host: '127.0.0.1', dbPath: join(dir, 'emulator.db'), timeScale: 1, ssrf: 'loopback', plan: 'core', webhookCap: 10, rateLimitScale: null, seed: 7, extraKeys: [] });
    await expect(start).rejects.toMatchObject({ code: 'EADDRINUSE', message: expect.stringContaining(`port ${port} on 127.0.0.1 is already in use`) });
    expect(readdirSync(dir)).toEqual([]);
  });
});
