/**
 * The development secret is settled before any part reads the config (issue 37, part 5): when another
 * start kept one first, every part (the console's hints, the relay's signature, the banner) reads
 * that one, from one frozen config; nothing changes the config after they read it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { settleDevSecret } from '../../src/app/dev-secret.js';
import { secretHint } from '../../src/core/secret-hint.js';
import { verify } from '../../src/index.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MADE = 'whsec_dev_made_by_this_start_0123456789abcdef';
const KEPT = 'whsec_dev_kept_by_another_start_0123456789abc';

function folderWithKeptSecret(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  mkdirSync(join(dir, '.hookrelay'), { recursive: true });
  writeFileSync(join(dir, '.hookrelay', 'dev-secret'), `${KEPT}\n`, { mode: 0o600 });
  return join(dir, '.hookrelay', 'hookrelay.db');
}

describe('settleDevSecret', () => {
  it('uses the secret another start kept first, as the primary and the forward secret, in a new frozen config', () => {
    const db = folderWithKeptSecret();
    const given = testListenConfig(db, { secrets: [MADE], devSecret: { created: true, file: 'x' }, forward: { to: 'http://127.0.0.1:1/h', secret: MADE, timeoutMs: 1000, headers: [], mode: 'async', maxTries: 1 } });
    const settled = settleDevSecret(given);
    expect(settled.config.secrets).toEqual([KEPT, MADE]);
    expect(settled.config.forward!.secret).toBe(KEPT);
    expect(settled.notice).toMatch(/another start made the development secret in .* first: that one is used/);
    expect(Object.isFrozen(settled.config) && Object.isFrozen(settled.config.secrets)).toBe(true);
    expect(given.secrets).toEqual([MADE]);
  });
});

describe('a listen whose development secret another start kept first', () => {
  it('shows its hint in the console, signs hand-offs with it, and says so once the start is shown', async () => {
    const db = folderWithKeptSecret();
    const target = await startTarget();
    cleanups.push(() => target.close());
    const app = await buildApp(
      testListenConfig(db, {
        secrets: [MADE],
        devSecret: { created: true, file: 'x' },
        console: { port: 0, host: '127.0.0.1', allowedHosts: [], token: null },
        forward: { to: target.url, secret: MADE, timeoutMs: 2000, headers: [], mode: 'async', maxTries: 3 },
      }),
    );
    cleanups.push(() => app.close());
    expect(app.startNotices.map((n) => n.message)).toEqual([expect.stringMatching(/first: that one is used/)]);
    const status = await (await request(new URL('/api/status', app.consoleUrl!).href)).body.json() as { data: { secretHints: string[] } };
    expect(status.data.secretHints[0]).toBe(secretHint(KEPT));

    const req = signedRequest({ secret: KEPT, t: Math.floor(Date.now() / 1000) });
    const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    await target.waitFor(1);
    expect(verify(target.received[0]!.body, target.received[0]!.headers['x-service-signature'] as string, { secrets: [KEPT] }).ok).toBe(true);
  }, 30_000);
});
