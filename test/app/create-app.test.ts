/** createApp builds without binding a port; start() listens; buildApp is both. */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/build-app.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('createApp', () => {
  it('builds the store and routes without listening, and start() binds them', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const built = await createApp(testListenConfig(join(dir, 'app.db')));
    cleanups.push(() => built.close());
    expect(built.receiver.server.listening).toBe(false);
    // The routes work already (inject needs no socket): the pipeline and the store are wired.
    const req = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const injected = await built.receiver.inject({ method: 'POST', url: '/webhooks', headers: req.headers, payload: req.body });
    expect(injected.statusCode).toBe(200);

    const app = await built.start();
    expect(built.receiver.server.listening).toBe(true);
    const again = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
    expect(((await again.body.json()) as { data: { duplicate: boolean } }).data.duplicate).toBe(true);
  });
});
