/**
 * Scenario 5, hostile input: generated and mutated requests — methods, paths, headers,
 * signature strings, bodies, lengths, encodings — against the receiver in this process, first
 * through fastify's inject (thousands, fast), then as raw bytes on real sockets (Node's own
 * HTTP parser in the way). Never a 5xx, never a crash, never a stored row without a valid
 * signature, and the heap after a GC is where it was.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { sign } from '../../src/core/signature/sign.js';
import { verify } from '../../src/core/signature/verify.js';
import { envelopeBody, signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { baseConfig, nowSeconds, summary } from './helpers/kit.js';

const SEED = 8_0808;
const INJECT_RUNS = 3_000;
const RAW_RUNS = 400;
const BODY_LIMIT = 64 * 1024;

/** A GC on demand without --expose-gc on the command line: V8 allows turning the flag on at runtime. */
function collector(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
}

interface Hostile {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

const T_NOW = () => nowSeconds();

/** Arbitrary signature header values, from plausible to garbage. */
const signatureValue = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.stringMatching(/^[0-9a-f]{0,80}$/)).map(([t, v]) => `t=${t},v1=${v}`),
  fc.tuple(fc.integer({ min: -10_000, max: 10_000 }), fc.array(fc.stringMatching(/^[0-9a-f]{64}$/), { maxLength: 5 })).map(
    ([dt, v1s]) => [`t=${T_NOW() + dt}`, ...v1s.map((v) => `v1=${v}`)].join(','),
  ),
  fc.constantFrom('', 't=', 'v1=', 't=,v1=', ',,,,', 't=1e3,v1=00', 't=0x10,v1=ab', 't=99999999999999999999,v1=ab', 't=1,v0=ab,v2=cd', '\u0000'),
);

/** A mutation of a valid signed delivery. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('signature' as const), value: signatureValue }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }), resign: fc.boolean() }),
  fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat(), resign: fc.boolean() }),
  fc.record({ kind: fc.constant('append' as const), extra: fc.uint8Array({ maxLength: 200 }), resign: fc.boolean() }),
  fc.record({ kind: fc.constant('body' as const), bytes: fc.uint8Array({ maxLength: 2_000 }), resign: fc.boolean() }),
  fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 4 }), resign: fc.boolean() }),
  fc.record({ kind: fc.constant('envelope' as const), field: fc.constantFrom('id', 'type', 'apiVersion', 'createdAt', 'organizationId', 'data'), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant('bom' as const) }),
  fc.record({ kind: fc.constant('deep' as const), depth: fc.integer({ min: 100, max: 50_000 }) }),
  fc.record({ kind: fc.constant('huge' as const), bytes: fc.integer({ min: BODY_LIMIT - 200, max: BODY_LIMIT * 2 }) }),
  fc.record({ kind: fc.constant('header' as const), name: fc.constantFrom('x-service-delivery', 'x-service-event', 'x-service-delivery-attempt', 'x-service-api-version', 'content-type', 'content-encoding', 'x-service-signature'), value: fc.string({ maxLength: 300 }), drop: fc.boolean() }),
  fc.record({ kind: fc.constant('skew' as const), seconds: fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.constantFrom(-301, 301, -299, 299)) }),
  fc.record({ kind: fc.constant('secret' as const), secret: fc.string({ minLength: 1, maxLength: 40 }) }),
  fc.record({ kind: fc.constant('valid' as const) }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

const method = fc.oneof({ weight: 6, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') });
const path = fc.oneof(
  { weight: 8, arbitrary: fc.constant('/webhooks') },
  { weight: 1, arbitrary: fc.constantFrom('/webhooks/', '/webhooks?x=1', '/WEBHOOKS', '/webhooks/__hop/1/2-302-abc', '/webhooks/__hop/x', '//webhooks', '/%ff', '/webhooks#x', '/healthz', '/') },
  // inject() itself needs a path starting with "/"; the raw-socket test sends whatever bytes.
  { weight: 1, arbitrary: fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)) },
);

/** Applies a mutation to a fresh valid delivery. Signed with the right secret unless the mutation says otherwise. */
function build(m: Mutation, verb: string, url: string): Hostile {
  const base = signedRequest({ t: T_NOW() });
  const headers = { ...base.headers };
  let body = base.body;
  let resign = false;
  switch (m.kind) {
    case 'signature':
      headers['x-service-signature'] = m.value;
      break;
    case 'flip':
      body = Buffer.from(body);
      body[m.at % body.length] = body[m.at % body.length]! ^ m.xor;
      resign = m.resign;
      break;
    case 'truncate':
      body = body.subarray(0, m.keep % body.length);
      resign = m.resign;
      break;
    case 'append':
      body = Buffer.concat([body, m.extra]);
      resign = m.resign;
      break;
    case 'body':
      body = Buffer.from(m.bytes);
      resign = m.resign;
      break;
    case 'json':
      body = Buffer.from(JSON.stringify(m.value) ?? 'null');
      resign = m.resign;
      break;
    case 'envelope':
      body = Buffer.from(JSON.stringify({ ...(JSON.parse(body.toString()) as object), [m.field]: m.value }));
      resign = true;
      break;
    case 'bom':
      body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
      resign = true;
      break;
    case 'deep':
      body = Buffer.from(`${'['.repeat(m.depth)}${']'.repeat(m.depth)}`);
      resign = true;
      break;
    case 'huge':
      body = Buffer.concat([envelopeBody(base.id).subarray(0, -1), Buffer.from(`,"pad":"${'x'.repeat(m.bytes)}"}`)]);
      resign = true;
      break;
    case 'header':
      if (m.drop) delete headers[m.name];
      else headers[m.name] = m.value;
      break;
    case 'skew':
      headers['x-service-signature'] = sign(TEST_SECRET, body, T_NOW() + m.seconds);
      break;
    case 'secret':
      headers['x-service-signature'] = sign(m.secret, body, T_NOW());
      break;
    case 'valid':
      break;
  }
  if (resign) headers['x-service-signature'] = sign(TEST_SECRET, body, T_NOW());
  return { method: verb, url, headers, body };
}

const hostile = fc.tuple(mutation, method, path).map(([m, verb, url]) => build(m, verb, url));

/**
 * The status of every response in `answer`. Not anchored to a line start: a response after a
 * Content-Length body follows the body's last byte directly.
 */
function statusesOf(answer: string): number[] {
  return [...answer.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
}

describe('hostile input fuzz', () => {
  let app: AppHandle;
  let dbPath = '';
  const cleanups: Array<() => unknown> = [];
  const statuses = new Map<number, number>();
  const tally = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  let injected = 0;
  let raw = 0;
  let rawClosedWithoutAnswer = 0;
  let pipelinedPairs = 0;
  let pipelinedBothAnswered = 0;
  let heapGrowth: number | null = null;
  let rssGrowth: number | null = null;

  beforeAll(async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    dbPath = join(dir, 'fuzz.db');
    app = await buildApp(baseConfig(dbPath, { bodyLimitBytes: BODY_LIMIT }));
    cleanups.push(() => app.close());
  });
  afterAll(async () => {
    summary('hostile input fuzz', {
      seed: SEED, injected, rawSocket: raw, rawClosedWithoutAnswer, pipelinedPairs, pipelinedBothAnswered, statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])),
      heapGrowthKiB: heapGrowth === null ? 'not measured' : Math.round(heapGrowth / 1024), rssGrowthKiB: rssGrowth === null ? 'not measured' : Math.round(rssGrowth / 1024),
      fiveXX: [...statuses.keys()].filter((s) => s >= 500).length,
    });
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('never answers 5xx to generated requests, and the heap stays flat', async () => {
    const gc = collector();
    const send = async (h: Hostile) => {
      const res = await app.receiver.inject({ method: h.method as 'POST', url: h.url, headers: h.headers, payload: h.body });
      injected++;
      tally(res.statusCode);
      return res.statusCode;
    };
    // Warm up (JIT, statement caches, SQLite page cache) before the baseline.
    await fc.assert(fc.asyncProperty(hostile, async (h) => (await send(h)) < 500), { seed: SEED + 1, numRuns: 300 });
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    await fc.assert(fc.asyncProperty(hostile, async (h) => (await send(h)) < 500), { seed: SEED, numRuns: INJECT_RUNS });
    if (gc) {
      gc();
      heapGrowth = process.memoryUsage().heapUsed - heapBefore;
      rssGrowth = process.memoryUsage().rss - rssBefore;
      // A leak of even 3 KiB per request would show as 9 MiB here.
      expect(heapGrowth).toBeLessThan(8 * 1024 * 1024);
    }
  });

  it('never answers 5xx to mutated raw bytes on a real socket, and never leaves one hanging', async () => {
    const url = new URL(app.receiverUrl);
    // Request shapes beyond the mutations: HTTP/1.0, no Content-Type, no body at all (fastify
    // then leaves the body undefined: this once answered 500), and no framing header.
    const shape = fc.record({ http10: fc.boolean(), dropContentType: fc.boolean(), empty: fc.boolean(), noFraming: fc.boolean() });
    const rawRequest = fc.tuple(hostile, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), fc.boolean(), fc.option(fc.nat(), { nil: undefined }), shape)
      .map(([hostileRequest, flips, chunked, truncateAt, form]) => {
        const h = { ...hostileRequest, headers: { ...hostileRequest.headers }, body: form.empty ? Buffer.alloc(0) : hostileRequest.body };
        if (form.dropContentType) delete h.headers['content-type'];
        const lines = [`${h.method} ${h.url} HTTP/${form.http10 ? '1.0' : '1.1'}`, `host: ${url.host}`, 'connection: close'];
        for (const [name, value] of Object.entries(h.headers)) lines.push(`${name}: ${value.replace(/[\r\n]/g, ' ')}`);
        let wire: Buffer;
        if (form.empty && form.noFraming) {
          wire = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
        } else if (chunked && !form.http10) {
          lines.push('transfer-encoding: chunked');
          wire = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n${h.body.length.toString(16)}\r\n`), h.body, Buffer.from('\r\n0\r\n\r\n')]);
        } else {
          lines.push(`content-length: ${h.body.length}`);
          wire = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), h.body]);
        }
        // Byte flips land in the head (request line, headers), where the HTTP parser sees them.
        const head = wire.indexOf('\r\n\r\n');
        for (const [at, value] of flips) wire[at % Math.max(1, head)] = value;
        return truncateAt === undefined ? wire : wire.subarray(0, truncateAt % wire.length);
      });

    /**
     * Sends `wire` (holding `expected` requests) and resolves with the status of every response
     * that came back, in order: all of them, so a 5xx to a pipelined second request is seen too.
     */
    const exchange = (wire: Buffer, expected = 1) =>
      new Promise<number[]>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname);
        let answer = '';
        // Every request is complete or cut short and then half-closed: the server must answer or
        // close, never leave the socket open.
        socket.setTimeout(10_000, () => {
          socket.destroy();
          reject(new Error(`no answer and no close within 10 s for ${JSON.stringify(wire.subarray(0, 200).toString('latin1'))}`));
        });
        // A client that half-closes at once can lose its answer (Node's server drops the requests it
        // has not answered yet when the client ends), so the request is written and the socket ended
        // only once an answer has begun for each request sent, or after a second without new bytes.
        let endLater = setTimeout(() => socket.end(), 1_000);
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString('latin1');
          clearTimeout(endLater);
          if (statusesOf(answer).length >= expected) socket.end();
          else endLater = setTimeout(() => socket.end(), 1_000);
        });
        socket.on('error', () => {
          /* a reset after the answer is fine; the close decides */
        });
        socket.on('close', () => {
          clearTimeout(endLater);
          resolve(statusesOf(answer));
        });
        socket.write(wire);
      });

    /** Counts `sent` requests and the answers they got; true when none of the answers is a 5xx. */
    const record = (sent: number, answers: number[]) => {
      raw += sent;
      rawClosedWithoutAnswer += Math.max(0, sent - answers.length);
      for (const status of answers) tally(status);
      return answers.every((s) => s < 500);
    };

    await fc.assert(
      fc.asyncProperty(fc.array(rawRequest, { minLength: 8, maxLength: 8 }), async (batch) => {
        const results = await Promise.all(batch.map((wire) => exchange(wire)));
        return results.map((answers) => record(1, answers)).every(Boolean);
      }),
      { seed: SEED + 2, numRuns: RAW_RUNS / 8 },
    );

    // Pipelined: two requests in one write, the first kept alive.
    const keepAlive = (wire: Buffer) => Buffer.from(wire.toString('latin1').replace('connection: close', 'connection: keep-alive'), 'latin1');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(rawRequest, rawRequest), { minLength: 4, maxLength: 4 }), async (pairs) => {
        const results = await Promise.all(pairs.map(([first, second]) => exchange(Buffer.concat([keepAlive(first), second]), 2)));
        pipelinedPairs += results.length;
        pipelinedBothAnswered += results.filter((answers) => answers.length >= 2).length;
        return results.map((answers) => record(2, answers)).every(Boolean);
      }),
      { seed: SEED + 3, numRuns: RAW_RUNS / 16 },
    );
    // Otherwise the pipelined part would check only first answers, as it once did.
    expect(pipelinedBothAnswered).toBeGreaterThan(0);
  });

  it('is still up afterwards, and every stored row carries a valid signature over its exact bytes', async () => {
    const health = await request(new URL('/healthz', app.receiverUrl));
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    const good = signedRequest({ t: nowSeconds() });
    const res = await request(app.receiverUrl, { method: 'POST', headers: good.headers, body: good.body });
    expect(res.statusCode).toBe(200);
    await res.body.dump();

    const db = new Database(dbPath, { readonly: true });
    const ids = db.prepare<[], { id: string }>('SELECT id FROM deliveries').all().map((r) => r.id);
    db.close();
    expect(ids.length).toBeGreaterThan(1);
    const invalid: string[] = [];
    for (const id of ids) {
      const stored = (await app.store.getDelivery(id))!;
      const header = stored.headers.filter(([name]) => name.toLowerCase() === 'x-service-signature').map(([, value]) => value);
      const verdict = verify(stored.rawBody, header.length === 1 ? header[0] : header, { secrets: [TEST_SECRET], toleranceSeconds: 300, nowSeconds: stored.receivedAt / 1000 });
      if (!verdict.ok || stored.signature !== 'valid') invalid.push(id);
    }
    expect(invalid).toEqual([]);
  });
});
