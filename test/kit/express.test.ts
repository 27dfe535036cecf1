/** hookrelay/express in express 5: the shared table with the middleware reading the body, after express.json({ verify: keepRawBody }), and after a plain express.json(). */
import express, { type Express } from 'express';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { hookrelay, isEvent, keepRawBody, memoryDedupe, type Delivery, type WebhookError, type WebhookEvent } from '../../src/kit/express.js';
import { serve, post } from './http.js';
import { delivery, expectAfterJsonParser, nowMs, SECRET, VERIFY_CASES, type VerifyCase } from './verify-cases.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type Mode = 'raw' | 'json with keepRawBody' | 'json first';

interface Seen {
  events: WebhookEvent[];
  deliveries: Delivery[];
  errors: WebhookError[];
}

async function app(mode: Mode, secrets: string[], extra: Partial<Parameters<typeof hookrelay>[0]> = {}): Promise<{ url: string; seen: Seen }> {
  const seen: Seen = { events: [], deliveries: [], errors: [] };
  const application: Express = express();
  if (mode === 'json with keepRawBody') application.use(express.json({ verify: keepRawBody }));
  if (mode === 'json first') application.use(express.json());
  application.post('/webhooks', hookrelay({ secrets, now: nowMs, onError: (error) => seen.errors.push(error), ...extra }), (req, res) => {
    seen.events.push(req.webhook!);
    seen.deliveries.push(req.webhookDelivery!);
    res.status(200).json({ ok: true });
  });
  const server = await serve(application);
  closers.push(server.close);
  return { url: `${server.url}/webhooks`, seen };
}

function check(answer: Awaited<ReturnType<typeof post>>, seen: Seen, expected: VerifyCase['expect'] | { status: 500; code: string }, c: VerifyCase, hints: boolean) {
  expect(answer.status).toBe(expected.status);
  if (expected.status === 200) {
    expect(answer.errorHeader).toBeNull();
    expect(seen.events).toHaveLength(1);
    expect(seen.events[0]!.type).toBe(expected.type);
    expect(seen.events[0]!.id).toBe(c.sent.headers['x-service-delivery']);
    expect(seen.deliveries[0]!.secretIndex).toBe(expected.secretIndex);
    expect(seen.deliveries[0]!.notes.length > 0).toBe(expected.notes === true);
    return;
  }
  expect(seen.events).toHaveLength(0);
  expect(answer.json).toMatchObject({ success: false, code: expected.code });
  expect(answer.errorHeader).toBe(expected.code);
  expect(seen.errors.map((e) => e.code)).toEqual([expected.code]);
  if (hints && 'hint' in expected && expected.hint) expect(seen.errors[0]!.hints.join('\n')).toMatch(expected.hint);
}

describe('hookrelay/express', () => {
  describe.each(['raw', 'json with keepRawBody'] as const)('%s', (mode) => {
    it.each(VERIFY_CASES.filter((c) => !(mode !== 'raw' && c.parserRejects)))('$name', async (c) => {
      const { url, seen } = await app(mode, c.secrets);
      check(await post(url, c.sent), seen, c.expect, c, true);
    });
  });

  describe('express.json() mounted first, without keepRawBody', () => {
    it.each(VERIFY_CASES.filter((c) => !c.parserRejects))('$name', async (c) => {
      const { url, seen } = await app('json first', c.secrets);
      const answer = await post(url, c.sent);
      const expected = expectAfterJsonParser(c);
      check(answer, seen, expected, c, false);
      if (expected.status === 500) {
        // Says what happened and what to do, and makes the service retry instead of dropping it.
        expect(answer.json!.error).toMatch(/already consumed by a body parser \(express\.json\(\) or similar\)/);
        expect(seen.errors[0]!.hints[0]).toMatch(/keepRawBody/);
      }
    });
  });

  it('says so when another middleware read the stream and kept nothing', async () => {
    const application = express();
    const errors: WebhookError[] = [];
    application.use((req, _res, next) => {
      req.on('data', () => {}).on('end', () => next());
    });
    application.post('/webhooks', hookrelay({ secrets: SECRET, now: nowMs, onError: (e) => errors.push(e) }), (_req, res) => res.sendStatus(200));
    const server = await serve(application);
    closers.push(server.close);
    const answer = await post(`${server.url}/webhooks`, delivery());
    expect(answer.status).toBe(500);
    expect(answer.json).toMatchObject({ code: 'RAW_BODY_UNAVAILABLE' });
    expect(answer.errorHeader).toBe('RAW_BODY_UNAVAILABLE');
    expect(answer.json!.error).toMatch(/read the request body before hookrelay/);
  });

  it('hands each delivery id to the handler once with a dedupe store, and answers repeats 200', async () => {
    const dedupe = memoryDedupe();
    const { url, seen } = await app('raw', [SECRET], { dedupe });
    const sent = delivery({ id: 'dup_1' });
    expect((await post(url, sent)).status).toBe(200);
    const again = await post(url, { ...sent, headers: { ...sent.headers, 'x-service-delivery-attempt': '2' } });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ success: true, data: { deliveryId: 'dup_1', duplicate: true } });
    expect(again.errorHeader).toBeNull();
    expect(seen.events.map((e) => e.id)).toEqual(['dup_1']);
    expect(dedupe.size()).toBe(1);
  });

  const failures: Array<[string, (res: express.Response) => void]> = [
    ['answers 500', (res) => void res.status(500).json({ ok: false })],
    ['throws', () => {
      throw new Error('db down');
    }],
    ['closes the connection without an answer', (res) => void res.socket?.destroy()],
  ];
  it.each(failures)('releases the id when the handler %s: the retry reaches it again, and repeats of a success are duplicates', async (_name, fail) => {
    const dedupe = memoryDedupe();
    const ids: string[] = [];
    const application = express();
    application.post('/webhooks', hookrelay({ secrets: SECRET, now: nowMs, dedupe }), (req, res) => {
      ids.push(req.webhook!.id);
      if (ids.length === 1) fail(res);
      else res.status(200).json({ ok: true });
    });
    const server = await serve(application);
    closers.push(server.close);
    const url = `${server.url}/webhooks`;
    const sent = delivery({ id: 'retry_x' });
    const first = await post(url, sent).catch(() => null);
    expect(first?.status ?? 'no answer').not.toBe(200);
    expect((await post(url, sent)).json).toEqual({ ok: true });
    expect((await post(url, sent)).json).toMatchObject({ data: { deliveryId: 'retry_x', duplicate: true } });
    expect(ids).toEqual(['retry_x', 'retry_x']);
  });

  it('answers 503 when the dedupe store fails, so the service retries', async () => {
    const { url, seen } = await app('raw', [SECRET], { dedupe: { claim: () => Promise.reject(new Error('redis down')) } });
    const answer = await post(url, delivery({ id: 'dup_2' }));
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ code: 'DEDUPE_UNAVAILABLE' });
    expect(answer.errorHeader).toBe('DEDUPE_UNAVAILABLE');
    expect(seen.events).toHaveLength(0);
  });

  it('refuses a body over the limit with 413, declared or not', async () => {
    const { url, seen } = await app('raw', [SECRET], { bodyLimitBytes: 2048 });
    const big = delivery({ id: 'big', body: Buffer.from(JSON.stringify({ pad: 'x'.repeat(5000) })) });
    const declared = await post(url, big);
    expect([declared.json?.code, declared.errorHeader]).toEqual(['PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE']);
    // Chunked: no content-length to refuse early on.
    const response = await fetch(url, {
      method: 'POST',
      headers: big.headers,
      body: new ReadableStream({ start(c) { c.enqueue(big.body); c.close(); } }),
      duplex: 'half',
    } as RequestInit);
    expect([response.status, response.headers.get('x-hookrelay-error')]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(seen.events).toHaveLength(0);
  });

  it('refuses bad options at once, not per request', () => {
    expect(() => hookrelay({ secrets: [] })).toThrow(/at least one secret/);
    expect(() => hookrelay({ secrets: SECRET, toleranceSeconds: 0 })).toThrow(/toleranceSeconds/);
  });

  it('types req.webhook as the event union, narrowed by isEvent', () => {
    const application = express();
    application.post('/w', hookrelay({ secrets: SECRET }), (req, res) => {
      const event = req.webhook;
      expectTypeOf(event).toEqualTypeOf<WebhookEvent | undefined>();
      if (isEvent(event, 'trustcenter.access_approved')) expectTypeOf(event.data.decidedBy).toEqualTypeOf<'reviewer' | 'access_rule' | 'api_client'>();
      res.end();
    });
  });
});
