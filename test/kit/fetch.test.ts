/** hookrelay/fetch with Requests built by undici: the shared table, on Web Crypto and on Node's verify. */
import { Request as UndiciRequest } from 'undici';
import { describe, expect, it } from 'vitest';
import { hookrelay as fetchWeb, isEvent, memoryDedupe, type WebhookError } from '../../src/kit/fetch.js';
import { hookrelay as fetchNode } from '../../src/kit/fetch-node.js';
import { delivery, nowMs, SECRET, VERIFY_CASES, type Sent } from './verify-cases.js';

const request = (sent: Sent, init: { method?: string; url?: string } = {}) =>
  new UndiciRequest(init.url ?? 'https://app.example/api/webhooks', { method: init.method ?? 'POST', headers: sent.headers, body: init.method === 'GET' ? null : sent.body }) as unknown as Request;

describe.each([
  ['Web Crypto (hookrelay/fetch in Deno, Bun, Workers)', fetchWeb, 'webHint'],
  ['Node (hookrelay/fetch on Node)', fetchNode, 'hint'],
] as const)('hookrelay/fetch: %s', (_name, hookrelay, hintKey) => {
  it.each(VERIFY_CASES)('$name', async (c) => {
    const errors: WebhookError[] = [];
    const verifyRequest = hookrelay({ secrets: c.secrets, now: nowMs, onError: (e) => errors.push(e) });
    const result = await verifyRequest(request(c.sent));
    if (c.expect.status === 200) {
      expect(result).not.toBeInstanceOf(Response);
      expect(result).toMatchObject({ id: c.sent.headers['x-service-delivery'], type: c.expect.type });
      return;
    }
    expect(result).toBeInstanceOf(Response);
    const response = result as Response;
    expect(response.status).toBe(c.expect.status);
    expect(await response.json()).toMatchObject({ success: false, code: c.expect.code });
    expect(response.headers.get('x-hookrelay-error')).toBe(c.expect.code);
    const hint = c.expect[hintKey];
    if (hint) expect(errors[0]!.hints.join('\n')).toMatch(hint);
  });

  it('narrows the event with isEvent', async () => {
    const event = await hookrelay({ secrets: SECRET, now: nowMs })(request(delivery({ id: 'n1' })));
    if (event instanceof Response || !isEvent(event, 'trustcenter.access_approved')) throw new Error('expected an access_approved event');
    expect(event.data.decidedBy).toBe('reviewer');
  });

  it('refuses other methods, a used body and an oversized one, each with its code', async () => {
    const verifyRequest = hookrelay({ secrets: SECRET, now: nowMs, bodyLimitBytes: 1024 });
    const refusal = async (response: Response) => [response.status, ((await response.json()) as { code: string }).code, response.headers.get('x-hookrelay-error')];
    const get = (await verifyRequest(request(delivery(), { method: 'GET' }))) as Response;
    expect(await refusal(get)).toEqual([405, 'METHOD_NOT_ALLOWED', 'METHOD_NOT_ALLOWED']);
    const used = request(delivery());
    await used.arrayBuffer();
    const consumed = (await verifyRequest(used)) as Response;
    expect(await refusal(consumed)).toEqual([500, 'RAW_BODY_UNAVAILABLE', 'RAW_BODY_UNAVAILABLE']);
    const big = (await verifyRequest(request(delivery({ body: Buffer.alloc(4096, 0x20) })))) as Response;
    expect(await refusal(big)).toEqual([413, 'PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE']);
  });

  it('answers a repeat with a 200 Response when given a dedupe store', async () => {
    const verifyRequest = hookrelay({ secrets: SECRET, now: nowMs, dedupe: memoryDedupe() });
    const sent = delivery({ id: 'dup_fetch' });
    expect(await verifyRequest(request(sent))).not.toBeInstanceOf(Response);
    const again = (await verifyRequest(request(sent))) as Response;
    expect(again.status).toBe(200);
    expect(again.headers.get('x-hookrelay-error')).toBeNull();
    expect(await again.json()).toMatchObject({ data: { deliveryId: 'dup_fetch', duplicate: true } });
  });

  it('answers 503 DEDUPE_UNAVAILABLE when the dedupe store fails, so the service retries', async () => {
    const verifyRequest = hookrelay({ secrets: SECRET, now: nowMs, dedupe: { claim: () => Promise.reject(new Error('redis down')) } });
    const answer = (await verifyRequest(request(delivery({ id: 'dup_down_fetch' })))) as Response;
    expect([answer.status, ((await answer.json()) as { code: string }).code, answer.headers.get('x-hookrelay-error')]).toEqual([503, 'DEDUPE_UNAVAILABLE', 'DEDUPE_UNAVAILABLE']);
  });

  it.each([
    ['throws', () => Promise.reject(new Error('db down')), 'rethrown: db down'],
    ['answers 503', () => new Response(null, { status: 503 }), 503],
  ] as const)('handle: when the handler %s, the id is released and the retry runs it again; repeats of a success are duplicates', async (_name, fail, firstOutcome) => {
    const verifyRequest = hookrelay({ secrets: SECRET, now: nowMs, dedupe: memoryDedupe() });
    const ids: string[] = [];
    const handler = async (event: { id: string }, delivery: { attempt: number | null }) => {
      ids.push(`${event.id}#${delivery.attempt}`);
      return ids.length === 1 ? fail() : new Response(null, { status: 204 });
    };
    const sent = delivery({ id: 'retry_fetch' });
    const attempt = (n: number) => request({ ...sent, headers: { ...sent.headers, 'x-service-delivery-attempt': String(n) } });
    const first = await verifyRequest.handle(attempt(1), handler).catch((err: Error) => `rethrown: ${err.message}`);
    expect(first instanceof Response ? first.status : first).toBe(firstOutcome);
    expect((await verifyRequest.handle(attempt(2), handler)).status).toBe(204);
    const third = await verifyRequest.handle(attempt(3), handler);
    expect(third.status).toBe(200);
    expect(await third.json()).toMatchObject({ data: { deliveryId: 'retry_fetch', duplicate: true } });
    expect(ids).toEqual(['retry_fetch#1', 'retry_fetch#2']);
  });

  it('handle: answers a refusal itself, without the handler', async () => {
    const verifyRequest = hookrelay({ secrets: SECRET, now: nowMs });
    let called = false;
    const answer = await verifyRequest.handle(request(delivery({ secret: 'whsec_not_the_one' })), () => ((called = true), new Response(null, { status: 204 })));
    expect([answer.status, answer.headers.get('x-hookrelay-error'), called]).toEqual([400, 'SIGNATURE_MISMATCH', false]);
  });
});
