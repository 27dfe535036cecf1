/** The ingest pipeline on its own, with no fastify: an Arrival in, an Outcome and its records out. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import { createFaultRules } from '../../src/faults/rules-controller.js';
import type { Passthrough, PassthroughResult } from '../../src/handoff/passthrough.js';
import type { Arrival, ArrivalConnection, Outcome } from '../../src/ingest/arrival.js';
import { createIngestPipeline, type IngestOptions, type IngestPipeline } from '../../src/ingest/pipeline.js';
import { createEventHub, type EventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError, type AttemptRecord, type DeliveryStore } from '../../src/store/store.js';
import { signedRequest, T0, TEST_SECRET, type SignedRequest } from '../helpers/signed-delivery.js';
import { rules } from './fault-helpers.js';
import { until } from '../helpers/until.js';

const NOW_MS = T0 * 1000 + 1500;
const UPPERCASE_NOTE = 'non-canonical signature encoding: uppercase hex';

let store: DeliveryStore;
let hub: EventHub;
let announced: Array<HubEvents['attempt']>;
let deliveries: Array<HubEvents['delivery']>;
let relays: Array<HubEvents['relay']>;
let ticks: number;

/** A clock that moves 1 ms on every reading: any record taken at two different moments shows it. */
const clock = () => NOW_MS + ticks++;

function pipeline(overrides: Partial<IngestOptions> = {}): IngestPipeline {
  return createIngestPipeline({
    path: '/webhooks',
    secrets: [TEST_SECRET],
    toleranceSeconds: 300,
    skipVerify: false,
    bodyLimitBytes: 4096,
    store,
    hub,
    clock,
    random: () => 0.5,
    ...overrides,
  });
}

/** A connection that never ends by itself, whose sender always waits out a delay (unless told otherwise). */
function connection(options: { waits?: boolean; ended?: Promise<number> } = {}): ArrivalConnection {
  return {
    wait: async () => options.waits ?? true,
    ended: () => options.ended ?? new Promise<number>(() => {}),
  };
}

function arrival(req: SignedRequest, extra: Partial<Arrival> = {}): Arrival {
  const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    source: 'http',
    receivedAt: clock(),
    rawBody: req.body,
    headers,
    rawHeaders: Object.entries(req.headers).flat(),
    connection: connection(),
    requestId: 'req-1',
    ...extra,
  };
}

const withoutSeq = ({ seq: _seq, ...rest }: AttemptRecord) => rest;

/** The outcome's record, checked against what the hub announced and the store holds: one record. */
async function recordOf(outcome: Outcome): Promise<AttemptRecord> {
  const recorded = await outcome.recorded;
  expect(announced.at(-1)!.attempt).toBe(recorded);
  const [stored] = await store.listAttempts({ limit: 1 });
  expect(withoutSeq(stored!)).toEqual(withoutSeq(recorded));
  return recorded;
}

const upperCased = (req: SignedRequest): SignedRequest => ({
  ...req,
  headers: { ...req.headers, 'x-service-signature': req.headers['x-service-signature']!.replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`) },
});

beforeEach(() => {
  store = createMemoryStore();
  hub = createEventHub();
  announced = [];
  deliveries = [];
  relays = [];
  ticks = 0;
  hub.on('attempt', (event) => announced.push(event));
  hub.on('delivery', (event) => deliveries.push(event));
  hub.on('relay', (event) => relays.push(event));
});

describe('pipeline: accepted and duplicate', () => {
  it('stores a signed delivery and answers 200 after the commit, with the record announced as stored', async () => {
    const req = signedRequest();
    const outcome = await pipeline().handle(arrival(req));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 200 });
    expect(JSON.parse((outcome.action as { body: string }).body)).toMatchObject({ success: true, data: { deliveryId: req.id, duplicate: false } });
    const record = await recordOf(outcome);
    expect(record).toMatchObject({ outcome: 'accepted', status: 200, reason: null, deliveryId: req.id, attemptHeader: 1, signatureTimestamp: T0, receivedAt: NOW_MS });
    expect(record.finishedAt).toBeGreaterThan(record.receivedAt);
    expect(announced[0]).toMatchObject({ skipVerify: false, requestId: 'req-1' });
    expect(deliveries.map((d) => d.delivery.id)).toEqual([req.id]);
    expect(Buffer.from((await store.getDelivery(req.id))!.rawBody).equals(req.body)).toBe(true);
  });

  it('answers a repeated id 2xx as a duplicate, announced and stored as a duplicate', async () => {
    const p = pipeline();
    const first = signedRequest();
    await p.handle(arrival(first));
    const outcome = await p.handle(arrival(signedRequest({ id: first.id, attempt: 2 })));
    expect(JSON.parse((outcome.action as { body: string }).body).data.duplicate).toBe(true);
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'duplicate', status: 200, attemptHeader: 2 });
    expect(deliveries).toHaveLength(1);
  });

  it('takes the same arrival from another source (a bridge) the same way', async () => {
    const outcome = await pipeline().handle(arrival(signedRequest(), { source: 'bridge' }));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 200 });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'accepted' });
  });

  it('accepts uppercase hex and notes it on the record', async () => {
    const outcome = await pipeline().handle(arrival(upperCased(signedRequest())));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 200 });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'accepted', reason: UPPERCASE_NOTE });
  });
});

describe('pipeline: refusals', () => {
  it('refuses a mismatched signature with 400, recorded before the Outcome is returned', async () => {
    const outcome = await pipeline().handle(arrival(signedRequest({ secret: 'whsec_other' })));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 400 });
    expect(JSON.parse((outcome.action as { body: string }).body)).toMatchObject({ success: false, code: 'SIGNATURE_MISMATCH' });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', signatureTimestamp: T0 });
  });

  it('names several signature headers (joined by the source as Node joins them)', async () => {
    const req = signedRequest();
    const a = arrival(req);
    const again = sign(TEST_SECRET, req.body, T0 + 1);
    const headers = { ...a.headers, 'x-service-signature': `${req.headers['x-service-signature']}, ${again}` };
    const outcome = await pipeline().handle({ ...a, headers, rawHeaders: [...a.rawHeaders, 'X-Service-Signature', again] });
    expect(JSON.parse((outcome.action as { body: string }).body)).toMatchObject({ code: 'SIGNATURE_MALFORMED', error: 'several x-service-signature headers: send exactly one' });
  });

  it('refuses a body the source could not read first, with the declared size on the record', async () => {
    const req = signedRequest();
    const outcome = await pipeline().handle(arrival(req, { rawBody: Buffer.alloc(0), unread: { problem: 'too_large', declaredBytes: 5000 } }));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 413 });
    expect(JSON.parse((outcome.action as { body: string }).body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', error: 'the body is over the limit of 4096 bytes' });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'rejected', status: 413, reason: 'PAYLOAD_TOO_LARGE', bodyBytes: 5000, bodySha256: '', signatureTimestamp: null, deliveryId: req.id });
  });

  it('refuses an envelope that disagrees with its headers', async () => {
    const req = signedRequest();
    req.headers['x-service-event'] = 'vendor.rating_dropped';
    const outcome = await pipeline().handle(arrival(req));
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'rejected', status: 400, reason: 'EVENT_TYPE_MISMATCH' });
  });

  it('answers 503 when the store cannot write, without waiting for the record of it', async () => {
    let release!: () => void;
    const stuck = new Promise<number>((resolve) => (release = () => resolve(0)));
    store = {
      ...createMemoryStore(),
      accept: async () => {
        throw new StoreUnavailableError('SQLITE_FULL: database or disk is full');
      },
      recordAttempt: () => stuck,
    };
    const outcome = await pipeline().handle(arrival(signedRequest()));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 503 });
    expect(JSON.parse((outcome.action as { body: string }).body)).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(announced).toEqual([]);
    release();
    expect(await outcome.recorded).toMatchObject({ outcome: 'unavailable', status: 503, reason: 'STORE_UNAVAILABLE' });
    expect(announced).toHaveLength(1);
  });
});

describe('pipeline: fault rules', () => {
  const withRules = (...lines: string[]) => pipeline({ faults: createFaultRules({ rules: rules(...lines), seed: 1, hub }) });

  it('answers a status rule exactly, recorded as faulted first', async () => {
    const outcome = await withRules('503 retry-after=120').handle(arrival(signedRequest()));
    expect(outcome.action).toMatchObject({ kind: 'fault-answer', status: 503, headers: expect.arrayContaining([['retry-after', '120']]) });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'faulted', status: 503, retryAfter: '120', reason: 'fault:503 retry-after=120' });
    expect(await store.listDeliveries({ limit: 10 })).toMatchObject({ items: [] });
  });

  it.each([
    ['reset', { kind: 'reset' }],
    ['close', { kind: 'close' }],
  ])('%s is a socket action with no status', async (rule, action) => {
    const outcome = await withRules(rule).handle(arrival(signedRequest()));
    expect(outcome.action).toEqual(action);
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'faulted', status: null, reason: `fault:${rule}` });
  });

  it('a hang is recorded when the connection ends, with that moment as finishedAt', async () => {
    let end!: (at: number) => void;
    const ended = new Promise<number>((resolve) => (end = resolve));
    const outcome = await withRules('hang slow-headers').handle(arrival(signedRequest(), { connection: connection({ ended }) }));
    expect(outcome.action).toEqual({ kind: 'hang', statusLine: 'HTTP/1.1 200 OK\r\n' });
    expect(announced).toEqual([]);
    end(NOW_MS + 10_000);
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'faulted', status: null, finishedAt: NOW_MS + 10_000, reason: 'fault:hang slow-headers' });
  });

  it('a delay the sender waits out is handled normally, the rule noted on the record', async () => {
    const outcome = await withRules('delay=5').handle(arrival(upperCased(signedRequest())));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 200 });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'accepted', reason: `fault:delay=5; ${UPPERCASE_NOTE}` });
  });

  it('a delay the sender left during leaves nothing to write, recorded as faulted with no status', async () => {
    const outcome = await withRules('delay=60000').handle(arrival(signedRequest(), { connection: connection({ waits: false }) }));
    expect(outcome.action).toEqual({ kind: 'none' });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'faulted', status: null, reason: 'fault:delay=60000' });
    expect(await store.listDeliveries({ limit: 10 })).toMatchObject({ items: [] });
  });

  it('decides a pre-verify rule before the signature, with the header t on the record', async () => {
    const outcome = await withRules('401 pre-verify').handle(arrival(signedRequest({ secret: 'whsec_someone_else', t: T0 - 3 })));
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'faulted', status: 401, signatureTimestamp: T0 - 3 });
  });

  it('serves a redirect chain: a hop before the last redirects, the last is handled normally without the rules', async () => {
    const p = withRules('redirect hops=2', '500 attempt=1');
    const req = upperCased(signedRequest());
    const first = await p.handle(arrival(req));
    expect(first.action).toMatchObject({ kind: 'fault-answer', status: 307 });
    const hop = { hop: 2, total: 2, status: 307 as const, nonce: 'abc' };
    const last = await p.handle(arrival(req, { hop }));
    expect(last.action).toMatchObject({ kind: 'answer', status: 200 });
    expect(await recordOf(last)).toMatchObject({ outcome: 'accepted', reason: `fault-hop:2/2; ${UPPERCASE_NOTE}` });
    const middle = await p.handle(arrival(req, { hop: { ...hop, hop: 1 } }));
    expect(middle.action).toMatchObject({ kind: 'fault-answer', status: 307, headers: expect.arrayContaining([['location', '/webhooks/__hop/2/2-307-abc']]) });
    expect(await recordOf(middle)).toMatchObject({ outcome: 'faulted', status: 307, reason: 'fault-hop:1/2', signatureTimestamp: T0 });
  });
});

describe('pipeline: sync passthrough', () => {
  let forwarded: string[];
  afterEach(() => (forwarded = []));

  function app(status: number | null, latencyMs = 3): Passthrough {
    forwarded = [];
    return {
      async forward(delivery) {
        forwarded.push(delivery.id);
        const result: PassthroughResult = { answer: { status, error: status === null ? 'timeout after 10000 ms' : null, latencyMs }, startedAt: NOW_MS, finishedAt: NOW_MS + latencyMs, target: 'http://app/' };
        return result;
      },
      close: async () => {},
    };
  }

  it("answers the app's 204 with no body, and records the app's status", async () => {
    const outcome = await pipeline({ passthrough: app(204) }).handle(arrival(signedRequest()));
    expect(outcome.action).toEqual({ kind: 'answer', status: 204, body: null });
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'accepted', status: 204 });
    // The relay log announces the try once its record is committed.
    await until(() => relays.length === 1, 'the relay try announced');
    expect(relays).toMatchObject([{ ok: true, status: 204 }]);
  });

  it("refuses the sender when the app does not answer 2xx, and stores nothing", async () => {
    const outcome = await pipeline({ passthrough: app(null) }).handle(arrival(signedRequest()));
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 504 });
    // A refused hand-off is the attempt's answer, with its error as a hint; nothing was stored to keep a relay try against.
    expect(await recordOf(outcome)).toMatchObject({ outcome: 'rejected', status: 504, reason: 'TARGET_TIMEOUT', hints: ['timeout after 10000 ms'] });
    expect(relays).toEqual([]);
    expect(await store.listDeliveries({ limit: 10 })).toMatchObject({ items: [] });
  });

  it('hands concurrent copies of one id to the app once', async () => {
    const p = pipeline({ passthrough: app(200) });
    const req = signedRequest();
    const outcomes = await Promise.all([1, 2, 3].map((attempt) => p.handle(arrival(signedRequest({ id: req.id, attempt })))));
    expect(forwarded).toEqual([req.id]);
    const records = await Promise.all(outcomes.map((o) => o.recorded));
    expect(records.map((r) => r.outcome).sort()).toEqual(['accepted', 'duplicate', 'duplicate']);
  });
});
