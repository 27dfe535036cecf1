/**
 * The console API shows what a rejected or faulted attempt sent (headers per attempt, the body of
 * one that stored nothing) and the hints beside its code; an id that was never stored gets its
 * attempts and its conformance verdict (issue 13, items 8, 13 and 14).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { startConsole, type ConsoleFixture } from './helpers/console-fixture.js';

let fixture: ConsoleFixture | null = null;
afterEach(async () => {
  await fixture?.close();
  fixture = null;
});

const HINT = 'the signature matches secret #1 with a trailing newline added: the sender\'s copy of the secret has a trailing newline; strip it where the sender loads it';
const hostileBody = Buffer.concat([Buffer.from('{"x":"<img src=x onerror=alert(1)>'), Buffer.from([0xff]), Buffer.from('"}')]);
const headers: Array<[string, string]> = [['X-Service-Signature', 't=1763719200,v1=' + 'ab'.repeat(32)], ['X-Evil', '<script>alert(1)</script>']];

async function seed(store: DeliveryStore, id: string, stored: boolean): Promise<void> {
  const d = makeDelivery({ id, rawHeaders: ['Content-Type', 'application/json'] });
  await store.recordAttempt(attemptFor(d, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', attemptHeader: 1, hints: [HINT], request: { headers, body: hostileBody } }));
  await store.recordAttempt(attemptFor(d, { outcome: 'faulted', status: 503, reason: 'fault:503', attemptHeader: 2, receivedAt: d.receivedAt + 60_000, request: { headers: [['X-Attempt', '2']], body: Buffer.from('{"second":true}') } }));
  if (stored) await store.accept(d, attemptFor(d, { attemptHeader: 3, receivedAt: d.receivedAt + 300_000 }));
}

async function get(path: string) {
  const res = await fetch(`${fixture!.base}${path}`);
  return { status: res.status, json: (await res.json()) as { data: Record<string, unknown> & { attempts: Array<Record<string, unknown>> } } };
}

describe('console API: what each attempt sent', () => {
  it('the detail of a stored delivery has headers per attempt, the body of each refused one, and the hints beside the code', async () => {
    const store = createMemoryStore();
    await seed(store, 'stored-1', true);
    fixture = await startConsole({ store });
    const { json } = await get('/api/deliveries/stored-1');
    const [rejected, faulted, accepted] = json.data.attempts as Array<{ outcome: string; headers: unknown; body: { text: string; base64: string; invalidUtf8: boolean } | null; hints: string[]; reason: string }>;
    expect(rejected).toMatchObject({ outcome: 'rejected', reason: 'SIGNATURE_MISMATCH', hints: [HINT], headers });
    expect(Buffer.from(rejected!.body!.base64, 'base64').equals(hostileBody)).toBe(true);
    expect(rejected!.body!.invalidUtf8).toBe(true);
    expect(faulted).toMatchObject({ outcome: 'faulted', hints: [], headers: [['X-Attempt', '2']], body: { text: '{"second":true}' } });
    // The accepted attempt's headers are its delivery's; its body is the delivery's body, shown above.
    expect(accepted).toMatchObject({ outcome: 'accepted', headers: [['Content-Type', 'application/json']], body: null });
  });

  it('an id never stored gets its attempts with what they sent, and a conformance verdict', async () => {
    const store = createMemoryStore();
    await seed(store, 'never-stored', false);
    const asked: string[] = [];
    fixture = await startConsole({ store, conformance: async (id) => (asked.push(id), { status: 'fail', rules: [{ rule: 'no-retry-after-410' }] }) });
    expect((await get('/api/deliveries/never-stored')).status).toBe(404);
    const { status, json } = await get('/api/deliveries/never-stored/attempts');
    expect(status).toBe(200);
    expect(json.data).toMatchObject({ id: 'never-stored', stored: false, attemptsTruncated: false, conformance: { status: 'fail' } });
    expect(asked).toEqual(['never-stored']);
    expect(json.data.attempts.map((a) => a.outcome)).toEqual(['rejected', 'faulted']);
    expect(json.data.attempts[0]).toMatchObject({ hints: [HINT], headers });
    expect((await get('/api/deliveries/nothing-here/attempts')).status).toBe(404);
  });

  it('serves a kept body as a download, and bounds what one detail inlines', async () => {
    const store = createMemoryStore();
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const d = makeDelivery({ id: 'big' });
    for (let i = 1; i <= 3; i++) {
      await store.recordAttempt(attemptFor(d, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', attemptHeader: i, request: { headers: [['N', String(i)]], body: big } }));
    }
    fixture = await startConsole({ store });
    const { json } = await get('/api/deliveries/big/attempts');
    const bodies = json.data.attempts.map((a) => a.body as { inline: boolean; bytes: number });
    // 4 MiB inline at most: the newest body fits, the older ones are left for the download.
    expect(bodies.map((b) => [b.inline, b.bytes])).toEqual([[false, big.length], [false, big.length], [true, big.length]]);
    const seq = json.data.attempts[0]!.seq as number;
    const raw = await fetch(`${fixture.base}/api/attempts/${seq}/raw`);
    expect(raw.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await raw.arrayBuffer()).equals(big)).toBe(true);
    expect((await fetch(`${fixture.base}/api/attempts/999999/raw`)).status).toBe(404);
  });

  it('announces a rejection with its hints on the feed view, never its request', async () => {
    const store = createMemoryStore();
    fixture = await startConsole({ store });
    await seed(store, 'listed', false);
    const { json } = await get('/api/attempts?deliveryId=listed');
    const views = json.data as unknown as Array<Record<string, unknown>>;
    expect(views.map((v) => v.hints)).toEqual([[], [HINT]]);
    expect(views.some((v) => 'headers' in v || 'body' in v || 'request' in v)).toBe(false);
  });
});
