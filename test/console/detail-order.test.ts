/**
 * The delivery detail of a real `listen` (buildApp: SQLite, the relay, the console wiring), issue 13,
 * item 13: each relay try with what the target answered, and the redirect hops of one attempt as
 * one attempt.
 */
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppHandle } from '../../src/app/build-app.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import { parseFaultRule } from '../../src/core/faults/index.js';
import { startApp, TEST_CONSOLE } from '../helpers/start-app.js';
import { signedRequest } from '../helpers/signed-delivery.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function start(overrides: Partial<ListenConfig>): Promise<AppHandle> {
  return startApp(cleanups, { console: TEST_CONSOLE, ...overrides });
}

async function consoleGet(app: AppHandle, path: string) {
  const res = await request(new URL(path, app.consoleUrl!));
  return (await res.body.json()) as { data: any };
}

const now = () => Math.floor(Date.now() / 1000);

/** An app that answers with bytes of its own: header bytes Node's server would refuse to send, and a body over 4 KiB. */
async function hostileTarget(answer: Buffer): Promise<string> {
  const server = createServer((socket: Socket) => {
    let seen = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf('\r\n\r\n');
      const length = Number(/content-length: *(\d+)/i.exec(seen.subarray(0, Math.max(0, end)).toString('latin1'))?.[1] ?? 0);
      if (end >= 0 && seen.length >= end + 4 + length) {
        seen = seen.subarray(end + 4 + length);
        socket.write(answer);
      }
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe('the detail of a delivery handed on (issue 13, item 13)', () => {
  it('shows each relay try with the answer\'s headers and the first 4 KiB of its body, hostile bytes intact; the list carries none of it', async () => {
    const body = Buffer.concat([Buffer.from('<script>alert(1)</script>\u0000\u001b[31m'), Buffer.from([0xff, 0xfe]), Buffer.alloc(6000, 0x78)]);
    const head = Buffer.concat([
      Buffer.from('HTTP/1.1 500 Internal Server Error\r\nX-Evil: <script>alert(1)</script>\t'),
      Buffer.from([0xff]),
      Buffer.from(`\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n`),
    ]);
    const target = await hostileTarget(Buffer.concat([head, body]));
    const app = await start({ forward: { to: target, secret: 'whsec_fwd', timeoutMs: 2000, headers: [], mode: 'async', maxTries: 1 } });
    const relayed = new Promise<void>((resolve) => app.hub.on('relay', () => resolve()));
    const req = signedRequest({ t: now() });
    await (await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body })).body.text();
    await relayed;

    const detail = (await consoleGet(app, `/api/deliveries/${req.id}`)).data;
    expect(detail.relay).toHaveLength(1);
    const [tried] = detail.relay;
    expect(tried).toMatchObject({ ok: false, status: 500, error: 'responded 500' });
    expect(tried.answer.headers).toEqual([['X-Evil', '<script>alert(1)</script>\t\u00ff'], ['Content-Type', 'text/html'], ['Content-Length', String(body.length)]]);
    expect(tried.answer).toMatchObject({ headerLines: 3, bodyBytes: body.length, complete: true });
    expect(tried.answer.body).toMatchObject({ bytes: 4096, invalidUtf8: true, inline: true });
    expect(Buffer.from(tried.answer.body.base64, 'base64').equals(body.subarray(0, 4096))).toBe(true);
    expect(tried.answer.body.text.startsWith('<script>alert(1)</script>\u0000\u001b[31m\uFFFD\uFFFD')).toBe(true);

    const [item] = (await consoleGet(app, '/api/deliveries')).data;
    expect(item.relay).toMatchObject({ status: 500 });
    expect(item.relay).not.toHaveProperty('answer');
  });

  it('lists the redirect hops of one attempt under it, numbered by the sender\'s attempt', async () => {
    const rule = parseFaultRule('redirect hops=3 attempt=1');
    if (!rule.ok) throw new Error(rule.message);
    const app = await start({ faultRules: [rule.rule] });
    const t = now();
    const first = signedRequest({ t });
    // fetch follows a 307 with the same method, body and headers: a sender's followed redirect.
    const answered = await fetch(app.receiverUrl, { method: 'POST', headers: first.headers, body: first.body.toString('latin1'), redirect: 'follow' });
    expect(answered.status).toBe(200);
    const retry = signedRequest({ id: first.id, body: first.body, t: t + 1, attempt: 2 });
    await (await request(app.receiverUrl, { method: 'POST', headers: retry.headers, body: retry.body })).body.text();

    const detail = (await consoleGet(app, `/api/deliveries/${first.id}`)).data;
    const shape = detail.attempts.map((a: { senderAttempt: number; hop: number; outcome: string; status: number; reason: string | null; attemptHeader: number }) => [a.senderAttempt, a.hop, a.attemptHeader, a.outcome, a.status, a.reason]);
    expect(shape).toEqual([
      [1, 0, 1, 'faulted', 307, 'fault:redirect hops=3 attempt=1'],
      [1, 1, 1, 'faulted', 307, 'fault-hop:1/3'],
      [1, 2, 1, 'faulted', 307, 'fault-hop:2/3'],
      [1, 3, 1, 'accepted', 200, 'fault-hop:3/3'],
      [2, 0, 2, 'duplicate', 200, null],
    ]);
    // Each hop keeps its own headers.
    expect(detail.attempts.slice(0, 3).every((a: { headers: unknown[] | null }) => Array.isArray(a.headers) && a.headers.length > 0)).toBe(true);
    // The conformance judge on the same page counts the same two attempts, of the same arrivals.
    const seqsOf = (n: number) => detail.attempts.filter((a: { senderAttempt: number }) => a.senderAttempt === n).map((a: { seq: number }) => a.seq);
    expect(detail.conformance.timeline.map((e: { position: number; hops: number; seqs: number[] }) => [e.position, e.hops, e.seqs])).toEqual([[1, 3, seqsOf(1)], [2, 0, seqsOf(2)]]);
    // The view of every arrival of an id numbers them the same way.
    const arrivals = (await consoleGet(app, `/api/deliveries/${first.id}/attempts`)).data;
    expect(arrivals.attempts.map((a: { senderAttempt: number; hop: number }) => [a.senderAttempt, a.hop])).toEqual([[1, 0], [1, 1], [1, 2], [1, 3], [2, 0]]);
  });
});
