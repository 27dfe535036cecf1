/**
 * `send` against a real hookrelay receiver that refuses: each attempt names the receiver's code (its
 * x-hookrelay-error header), and after the summary one line says what to do, so a new user with the
 * wrong secret learns the fix on the side that sent. The receiver's record keeps the receiver's words.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSendCommand } from '../../src/commands/send.js';
import { testReceiver } from '../helpers/test-receiver.js';
import { otherSecretHint } from '../../src/ingest/rejection-hints.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { runCli } from '../sender/helpers/cli.js';

const RECEIVER_SECRET = 'whsec_receiver_secret_0123456789';
const SENDER_SECRET = 'whsec_sender_secret_987654321zzzz';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function receiver(): Promise<{ url: string; store: DeliveryStore }> {
  const store = createMemoryStore();
  app = testReceiver({ path: '/webhooks', secrets: [RECEIVER_SECRET], toleranceSeconds: 300, skipVerify: false, bodyLimitBytes: 65536, store, hub: createEventHub(), clock: Date.now });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${address}/webhooks`, store };
}
const send = (...args: string[]) => runCli(registerSendCommand, ['send', '--max-attempts', '1', ...args]);

describe('send, refused by a hookrelay receiver', () => {
  it('a wrong secret: the attempt names SIGNATURE_MISMATCH and the advice says to use one secret on both sides, showing only hints', async () => {
    const { url, store } = await receiver();
    const result = await send('--to', url, '--secret', SENDER_SECRET, '--count', '2');
    expect(result.exitCode).toBe(1);
    expect(result.out).toMatch(/400 {2}http_4xx .*✗ no retry: http_4xx is not in retryOn; the receiver said SIGNATURE_MISMATCH/);
    const advice = result.out.split('\n').filter((line) => line.startsWith('The receiver could not verify the signature'));
    expect(advice).toEqual([expect.stringContaining('(--secret whsec_…zzzz)')]);
    expect(advice[0]).toContain('(SIGNATURE_MISMATCH, 2 attempts)');
    expect(result.out + result.err).not.toContain(SENDER_SECRET);
    expect(result.out + result.err).not.toContain(RECEIVER_SECRET);
    // The receiver's own record says the same in its words.
    const [attempt] = await store.listAttempts({ outcomes: ['rejected'], limit: 1 });
    expect(attempt!.hints).toEqual([otherSecretHint(1)]);
  });

  it("its own secret with a trailing newline: the advice says so, not that the receiver's secret is another one, and no line breaks", async () => {
    const { url } = await receiver();
    const result = await send('--to', url, '--secret', `${RECEIVER_SECRET}\n`);
    expect(result.exitCode).toBe(1);
    expect(result.out).toContain('the receiver said SIGNATURE_MISMATCH');
    const advice = result.out.split('\n').filter((line) => line.startsWith('The receiver could not verify the signature'));
    expect(advice).toEqual([
      "The receiver could not verify the signature, and the secret this run signs with (--secret whsec_…789\\u000a) has a trailing newline, which the service's secrets never have: strip it and send again. If the receiver still refuses, its secret is another one: sign with its secret (HOOKRELAY_SECRET or --secret), or start listen with this one. (SIGNATURE_MISMATCH, 1 attempt)",
    ]);
    expect(result.out).not.toContain('its secret is not the one this run signs with');
    expect(result.out + result.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
  });

  it('unsigned: SIGNATURE_MISSING, and the advice names --unsigned and --skip-verify', async () => {
    const { url } = await receiver();
    const result = await send('--to', url, '--unsigned');
    expect(result.out).toContain('the receiver said SIGNATURE_MISSING');
    expect(result.out).toContain('The receiver needs a signature: leave out --unsigned, or start listen with --skip-verify (local experiments only). (SIGNATURE_MISSING, 1 attempt)');
  });

  it('a wrong path: NOT_FOUND, and the advice names the path listen serves', async () => {
    const { url } = await receiver();
    const result = await send('--to', url.replace('/webhooks', '/webhoks'), '--secret', RECEIVER_SECRET);
    expect(result.out).toContain('404  http_4xx');
    expect(result.out).toContain('the receiver said NOT_FOUND');
    expect(result.out).toMatch(/^The receiver serves nothing at this path: `hookrelay listen` takes deliveries at POST \/webhooks, or at its --path; check --to\. \(NOT_FOUND, 1 attempt\)$/m);
    // The receiver saw the attempts, so check has a run to judge.
    expect(result.out).toContain('Judge this run');
  });

  it('nothing listening: no run to judge, and it says so instead of printing the check command', async () => {
    const { url } = await receiver();
    await app!.close();
    app = undefined;
    const result = await send('--to', url, '--secret', RECEIVER_SECRET);
    expect(result.out).toMatch(/---  network /);
    expect(result.out).not.toContain('Judge this run');
    expect(result.out).toContain('No attempt reached a receiver (none could connect), so there is no run for `hookrelay check` to judge: is it listening at --to?');
  });

  it('a proxy that is down: the closing line names the proxy (credentials hidden), not only the receiver', async () => {
    const { url } = await receiver();
    const dead = createServer();
    dead.listen(0, '127.0.0.1');
    await once(dead, 'listening');
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const result = await send('--to', url, '--secret', RECEIVER_SECRET, '--proxy', `http://ana:hunter2pass@127.0.0.1:${port}`);
    expect(result.out).toContain(`No attempt reached a receiver (none could connect through the proxy), so there is no run for \`hookrelay check\` to judge: is the proxy http://[redacted]@127.0.0.1:${port} (--proxy) up, and is a receiver listening at --to?`);
    expect(result.out + result.err).not.toContain('hunter2pass');
  });

  it('the right secret: no advice at all', async () => {
    const { url } = await receiver();
    const result = await send('--to', url, '--secret', RECEIVER_SECRET);
    expect(result.exitCode).toBeUndefined();
    expect(result.out).not.toContain('the receiver said');
    expect(result.out).not.toMatch(/^The receiver/m);
  });
});
