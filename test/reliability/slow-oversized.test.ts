/**
 * Scenario 6, slow and oversized clients: many connections dribbling headers or bodies are cut
 * by the server's timeouts while normal deliveries keep flowing at their usual latency; a lying
 * Content-Length, an oversized body and oversized headers get a clear answer, never a hang.
 *
 * The receiver is built here with short timeouts (1 s for headers, 2 s for a whole request)
 * through the receiver's options, so the scenario takes seconds, not the default 10 s / 30 s.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { testReceiver } from '../helpers/test-receiver.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { nowSeconds, percentile, post, summary, type Answer } from './helpers/kit.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const CHECK_INTERVAL_MS = 100;
const SLACK_MS = 1_500;
const BODY_LIMIT = 64 * 1024;
const SLOW_HEADER_CLIENTS = 120;
const SLOW_BODY_CLIENTS = 60;

interface Raw {
  status: number | null;
  statuses: number[];
  closedAfterMs: number;
}

describe('slow and oversized clients', () => {
  const cleanups: Array<() => unknown> = [];
  let url: URL;
  let store: SqliteStore;
  const numbers: Record<string, unknown> = {};

  beforeAll(async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    store = await createSqliteStore(join(dir, 'slow.db'));
    cleanups.push(() => store.close());
    const receiver = testReceiver({
      path: '/webhooks', secrets: [TEST_SECRET], toleranceSeconds: 300, skipVerify: false, bodyLimitBytes: BODY_LIMIT,
      store, hub: createEventHub(), clock: Date.now, requestTimeoutMs: REQUEST_TIMEOUT_MS, headersTimeoutMs: HEADERS_TIMEOUT_MS,
    });
    // Node enforces both timeouts from a sweep that runs every connectionsCheckingInterval
    // (default 30 s), read when the server starts listening.
    (receiver.server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval = CHECK_INTERVAL_MS;
    await receiver.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => receiver.close());
    url = new URL(`http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/webhooks`);
  });
  afterAll(async () => {
    summary('slow and oversized', numbers);
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * Opens a raw connection; resolves with what was answered once the server closes it (or, with
   * `untilStatus`, once a status line has arrived); rejects if neither happens by the deadline.
   */
  function rawClient(onOpen: (socket: Socket) => void, deadlineMs: number, untilStatus = false): { socket: Socket; done: Promise<Raw> } {
    const socket = connect(Number(url.port), url.hostname);
    const opened = performance.now();
    let answer = '';
    const done = new Promise<Raw>((resolve, reject) => {
      socket.setTimeout(deadlineMs, () => {
        socket.destroy();
        reject(new Error(`the server left a connection open for ${deadlineMs} ms`));
      });
      const settle = () => {
        const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
        resolve({ status: statuses[0] ?? null, statuses, closedAfterMs: performance.now() - opened });
      };
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('latin1');
        if (untilStatus && /HTTP\/1\.1 \d{3}/.test(answer)) {
          settle();
          socket.destroy();
        }
      });
      socket.on('error', () => {
        /* a reset is a close */
      });
      socket.on('close', settle);
    });
    socket.once('connect', () => onOpen(socket));
    return { socket, done };
  }

  async function normalLoad(count: number, dispatcher: Agent): Promise<Answer[]> {
    const answers: Answer[] = [];
    let left = count;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (left-- > 0) answers.push(await post(url.href, signedRequest({ t: nowSeconds() }), dispatcher));
      }),
    );
    return answers;
  }

  it('cuts dribbling clients at the header and request timeouts while deliveries keep their latency', async () => {
    const dispatcher = new Agent({ connections: 4 });
    cleanups.push(() => dispatcher.destroy());
    await normalLoad(100, dispatcher); // warm-up: JIT, statement caches, connections
    const baseline = await normalLoad(300, dispatcher);

    const head = `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    const slow: Array<{ socket: Socket; done: Promise<Raw>; kind: 'headers' | 'body' }> = [];
    for (let i = 0; i < SLOW_HEADER_CLIENTS; i++) {
      slow.push({ kind: 'headers', ...rawClient((s) => s.write(head), HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS + 3_000) });
    }
    for (let i = 0; i < SLOW_BODY_CLIENTS; i++) {
      const req = signedRequest({ t: nowSeconds() });
      const lines = Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n');
      slow.push({ kind: 'body', ...rawClient((s) => s.write(`${head}${lines}\r\ncontent-length: ${req.body.length}\r\n\r\n`), REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS + 3_000) });
    }
    // The dribble: one more header line, or one more body byte, every 100 ms on each connection.
    // This interval is the attack's pace, not a wait.
    const dribble = setInterval(() => {
      for (const { socket, kind } of slow) {
        if (socket.destroyed || !socket.writable || socket.connecting) continue;
        socket.write(kind === 'headers' ? 'x-slow: 1\r\n' : 'x');
      }
    }, 100);
    cleanups.push(() => clearInterval(dribble));

    const underAttack = await normalLoad(300, dispatcher);
    const cut = await Promise.all(slow.map((s) => s.done));
    clearInterval(dribble);

    expect([...baseline, ...underAttack].filter((a) => a.status !== 200)).toEqual([]);
    const p99Before = percentile(baseline.map((a) => a.ms), 99);
    const p99During = percentile(underAttack.map((a) => a.ms), 99);
    expect(p99During).toBeLessThan(Math.max(250, 5 * p99Before));

    const headerCuts = cut.filter((_, i) => slow[i]!.kind === 'headers');
    const bodyCuts = cut.filter((_, i) => slow[i]!.kind === 'body');
    // Cut with a 408 (or closed without one), and no later than the timeout plus a sweep and slack.
    expect(cut.filter((c) => c.status !== null && c.status !== 408)).toEqual([]);
    expect(Math.max(...headerCuts.map((c) => c.closedAfterMs))).toBeLessThan(HEADERS_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS);
    expect(Math.max(...bodyCuts.map((c) => c.closedAfterMs))).toBeLessThan(REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS);
    // Neither did the slow ones take the headers timeout for more than they were given.
    expect(Math.min(...headerCuts.map((c) => c.closedAfterMs))).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);

    Object.assign(numbers, {
      slowHeaderClients: SLOW_HEADER_CLIENTS, slowBodyClients: SLOW_BODY_CLIENTS, normalDeliveries: baseline.length + underAttack.length,
      p99BeforeMs: Math.round(p99Before), p99DuringMs: Math.round(p99During),
      headerCutMaxMs: Math.round(Math.max(...headerCuts.map((c) => c.closedAfterMs))), bodyCutMaxMs: Math.round(Math.max(...bodyCuts.map((c) => c.closedAfterMs))),
      answered408: cut.filter((c) => c.status === 408).length,
    });
  });

  /**
   * One raw exchange, as a real client does it: write the request and keep the socket open
   * (a half-close makes Node drop the answer to a request still in progress), then read until
   * the first status line, or with `untilClose` until the server closes the connection.
   */
  const exchange = async (wire: Buffer | string, untilClose = false, deadlineMs = 5_000) => {
    const { done } = rawClient((s) => s.write(wire), deadlineMs, !untilClose);
    return done;
  };

  function wireOf(req: { headers: Record<string, string>; body: Buffer }, contentLength: number, body = req.body): Buffer {
    const lines = Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n');
    return Buffer.concat([Buffer.from(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n${lines}\r\ncontent-length: ${contentLength}\r\n\r\n`), body]);
  }

  it('answers lying lengths, an oversized body and oversized headers clearly, with no hang', async () => {
    const before = (await store.listDeliveries({ limit: 10_000 })).items.length;

    // Longer than the body: the server waits for bytes that never come, then gives up (408).
    const req = signedRequest({ t: nowSeconds() });
    const longer = await exchange(wireOf(req, req.body.length + 500), true, REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + SLACK_MS);
    expect(longer.status).toBe(408);

    // Shorter than the body: the bytes counted do not verify (400), and the rest is not a request (400).
    const shorter = await exchange(wireOf(req, 50), true);
    expect(shorter.status).toBe(400);
    expect(shorter.statuses.every((s) => s === 400)).toBe(true);

    // Over the body limit, declared or chunked: 413.
    const big = signedRequest({ t: nowSeconds(), body: Buffer.alloc(BODY_LIMIT + 1024, 0x61) });
    const declared = await exchange(wireOf(big, big.body.length));
    expect(declared.status).toBe(413);
    const lines = Object.entries(big.headers).map(([k, v]) => `${k}: ${v}`).join('\r\n');
    const chunked = await exchange(
      Buffer.concat([Buffer.from(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n${lines}\r\ntransfer-encoding: chunked\r\n\r\n${big.body.length.toString(16)}\r\n`), big.body, Buffer.from('\r\n0\r\n\r\n')]),
    );
    expect(chunked.status).toBe(413);

    // Headers over Node's 16 KiB limit: 431.
    const huge = await exchange(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nx-huge: ${'h'.repeat(20_000)}\r\ncontent-length: 0\r\n\r\n`);
    expect(huge.status).toBe(431);

    // None of it was stored.
    expect((await store.listDeliveries({ limit: 10_000 })).items.length).toBe(before);
    Object.assign(numbers, {
      lyingLongerMs: Math.round(longer.closedAfterMs), lyingShorter: shorter.statuses, oversizedBody: [declared.status, chunked.status],
      oversizedBodyBytes: big.body.length, oversizedHeaders: huge.status, slowestClearAnswerMs: Math.round(Math.max(shorter.closedAfterMs, declared.closedAfterMs, chunked.closedAfterMs, huge.closedAfterMs)),
    });
  });
});
