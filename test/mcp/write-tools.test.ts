import { afterEach, describe, expect, it } from 'vitest';
import { verify } from '../../src/index.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { envelopeBody } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { connect, seededStore } from './harness.js';

const SECRET = 'whsec_mcp_write_secret_0a1b2c3d4e5f';
const PASSWORD = 's3cretpw_9931';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('hookrelay mcp --allow-write: the write tools', () => {
  it('replays one delivery to a local target once, signed, and records it without the credentials of its URL', async () => {
    const body = envelopeBody('evt-w');
    const { db, remove } = await seededStore(async (store) => {
      const d = makeDelivery({ id: 'evt-w', rawBody: body });
      await store.accept(d, attemptFor(d));
    });
    cleanups.push(remove);
    const target = await startTarget();
    cleanups.push(() => target.close());
    const h = await connect(db, { allowWrite: true, env: { HOOKRELAY_SECRET: SECRET } });
    cleanups.push(() => h.close());

    const to = target.url.replace('http://', `http://relay:${PASSWORD}@`);
    const replayed = await h.call('replay_delivery', { id: 'evt-w', to });
    expect(replayed.result.isError).toBeFalsy();
    expect(replayed.json).toMatchObject({ replayed: true, status: 200 });
    expect(target.received).toHaveLength(1);
    const [got] = target.received;
    expect(got!.body.equals(body)).toBe(true);
    expect(got!.headers['x-service-delivery']).toBe('evt-w');
    expect(verify(got!.body, String(got!.headers['x-service-signature']), { secrets: SECRET }).ok).toBe(true);

    const shown = await h.call('show_delivery', { id: 'evt-w' });
    expect(shown.json.relay.tries).toMatchObject([{ replay: true, status: 200, try: 1 }]);
    expect(shown.json.relay.tries[0].untrustedContent.answerBody.text).toBe('{"ok":true}');
    for (const text of h.answers) expect(text).not.toContain(PASSWORD);
    // Nothing else was sent.
    expect(target.received).toHaveLength(1);

    const remote = await h.call('replay_delivery', { id: 'evt-w', to: 'http://example.com/hook' });
    expect(remote.result.isError).toBe(true);
    expect(remote.text).toMatch(/example\.com is not on this machine/);
    const unknown = await h.call('replay_delivery', { id: 'evt-nope', to: target.url });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.text).toMatch(/no stored delivery with id "evt-nope"/);
    expect(target.received).toHaveLength(1);
  });

  it('queues a dead relay job again, and refuses any other with why', async () => {
    const { db, remove } = await seededStore(async (store) => {
      const dead = makeDelivery({ id: 'evt-dead' });
      const { deliverySeq } = await store.accept(dead, attemptFor(dead));
      await store.recordRelay({ deliverySeq, startedAt: 1, finishedAt: 2, status: null, error: 'down', replay: false, target: 'http://127.0.0.1:9/hook', try: 1, next: { state: 'dead' } });
      const pending = makeDelivery({ id: 'evt-pending' });
      await store.accept(pending, attemptFor(pending));
    }, { outbox: true });
    cleanups.push(remove);
    const h = await connect(db, { allowWrite: true });
    cleanups.push(() => h.close());
    const retried = await h.call('retry_relay', { id: 'evt-dead' });
    expect(retried.json).toMatchObject({ queued: true, requeuedTargets: [null] });
    expect((await h.call('show_delivery', { id: 'evt-dead' })).json.relay.jobs.map((j: { state: string }) => j.state)).toEqual(['pending']);
    const pending = await h.call('retry_relay', { id: 'evt-pending' });
    expect(pending.result.isError).toBe(true);
    expect(pending.text).toMatch(/still queued for the relay/);
    const none = await h.call('retry_relay', { id: 'evt-none' });
    expect(none.text).toMatch(/has no relay job/);
  });

  it('shows one job per target of a fan-out and retries one target, never showing the credentials of its URL', async () => {
    const APP = 'http://127.0.0.1:9/hook';
    const AUDIT = `http://audit:${PASSWORD}@127.0.0.1:8/audit`;
    const SHOWN_AUDIT = 'http://[redacted]@127.0.0.1:8/audit';
    const outbox = { to: APP, routes: [{ glob: '*', urls: [AUDIT], also: true as const }] };
    const { db, remove } = await seededStore(async (store) => {
      const d = makeDelivery({ id: 'evt-fan' });
      const { deliverySeq } = await store.accept(d, attemptFor(d));
      const tried = { deliverySeq, startedAt: 1, finishedAt: 2, replay: false, try: 1 };
      await store.recordRelay({ ...tried, status: null, error: 'down', target: APP, next: { state: 'dead' } });
      await store.recordRelay({ ...tried, status: 502, error: null, target: SHOWN_AUDIT, jobTarget: AUDIT, next: { state: 'dead' } });
    }, { outbox });
    cleanups.push(remove);
    const h = await connect(db, { allowWrite: true });
    cleanups.push(() => h.close());

    const shown = await h.call('show_delivery', { id: 'evt-fan' });
    expect(shown.json.relay.jobs).toEqual([
      { job: 1, target: APP, state: 'dead', tries: 1, nextAt: null, lastResponseStatus: null, lastStatus: null, lastError: 'down' },
      { job: 2, target: SHOWN_AUDIT, state: 'dead', tries: 1, nextAt: null, lastResponseStatus: 502, lastStatus: 502, lastError: null },
    ]);
    expect(shown.json.relay.tries.map((t: { target: string }) => t.target)).toEqual([APP, SHOWN_AUDIT]);

    const elsewhere = await h.call('retry_relay', { id: 'evt-fan', target: 'http://127.0.0.1:7/x' });
    expect(elsewhere.result.isError).toBe(true);
    expect(elsewhere.text).toContain(`its relay jobs go to ${APP}, ${SHOWN_AUDIT}`);
    const retried = await h.call('retry_relay', { id: 'evt-fan', target: SHOWN_AUDIT });
    expect(retried.json).toMatchObject({ queued: true, requeuedJobs: [2], requeuedTargets: [SHOWN_AUDIT] });
    expect((await h.call('show_delivery', { id: 'evt-fan' })).json.relay.jobs.map((j: { state: string }) => j.state)).toEqual(['dead', 'pending']);
    const again = await h.call('retry_relay', { id: 'evt-fan', target: SHOWN_AUDIT });
    expect(again.result.isError).toBe(true);
    expect(again.text).toContain(`By target: ${APP} is dead; ${SHOWN_AUDIT} is still queued for the relay`);
    for (const text of h.answers) expect(text).not.toContain(PASSWORD);
  });

  it('retries by the job\'s number when two targets show alike once their secrets are hidden', async () => {
    const A = 'https://a.example/hook?token=TENANT-SECRET-1';
    const B = 'https://a.example/hook?token=TENANT-SECRET-2';
    const SHOWN = 'https://a.example/hook?token=[redacted]';
    const outbox = { to: A, routes: [{ glob: '*', urls: [B], also: true as const }] };
    const { db, remove } = await seededStore(async (store) => {
      const d = makeDelivery({ id: 'evt-twins' });
      const { deliverySeq } = await store.accept(d, attemptFor(d));
      const tried = { deliverySeq, startedAt: 1, finishedAt: 2, replay: false, try: 1, target: SHOWN };
      await store.recordRelay({ ...tried, status: 500, error: 'no', jobTarget: A, next: { state: 'dead' } });
      await store.recordRelay({ ...tried, status: 502, error: 'no', jobTarget: B, next: { state: 'dead' } });
    }, { outbox });
    cleanups.push(remove);
    const h = await connect(db, { allowWrite: true });
    cleanups.push(() => h.close());
    const jobs = async () => (await h.call('show_delivery', { id: 'evt-twins' })).json.relay.jobs.map((j: { job: number; target: string; state: string; lastStatus: number }) => [j.job, j.target, j.state, j.lastStatus]);
    expect(await jobs()).toEqual([[1, SHOWN, 'dead', 500], [2, SHOWN, 'dead', 502]]);

    // By the shown URL it cannot tell them apart, and says how to.
    const alike = await h.call('retry_relay', { id: 'evt-twins', target: SHOWN });
    expect(alike.result.isError).toBe(true);
    expect(alike.text).toMatch(/name the job by its number/);
    for (const bad of [{ job: 3 }, { job: 2, target: SHOWN }]) expect((await h.call('retry_relay', { id: 'evt-twins', ...bad })).result.isError).toBe(true);
    expect((await h.call('retry_relay', { id: 'evt-twins', job: 3 })).text).toContain('this delivery has 2 relay jobs');
    for (const bad of [0, 1.5, '2']) expect((await h.call('retry_relay', { id: 'evt-twins', job: bad })).result.isError).toBe(true);
    expect(await jobs()).toEqual([[1, SHOWN, 'dead', 500], [2, SHOWN, 'dead', 502]]);

    // By number: only the second (B's) job goes back in the queue.
    const second = await h.call('retry_relay', { id: 'evt-twins', job: 2 });
    expect(second.json).toMatchObject({ queued: true, requeuedJobs: [2], requeuedTargets: [SHOWN] });
    expect(await jobs()).toEqual([[1, SHOWN, 'dead', 500], [2, SHOWN, 'pending', 502]]);
    const again = await h.call('retry_relay', { id: 'evt-twins', job: 2 });
    expect(again.result.isError).toBe(true);
    expect(again.text).toMatch(/still queued for the relay/);
    expect((await h.call('retry_relay', { id: 'evt-twins', job: 1 })).json).toMatchObject({ queued: true, requeuedJobs: [1] });
    expect(await jobs()).toEqual([[1, SHOWN, 'pending', 500], [2, SHOWN, 'pending', 502]]);
    for (const text of h.answers) expect(text).not.toMatch(/TENANT-SECRET/);
  });
});

describe('hookrelay mcp: the redactor of every answer', () => {
  it('knows the password of a filtered route\'s URL (its conditions may hold "=" before the URL)', async () => {
    const { db, remove } = await seededStore(async () => undefined);
    cleanups.push(remove);
    const route = `vendor.* where /data/risk = 70 = http://relay:${PASSWORD}@127.0.0.1:9/risky`;
    const { openMcpContext } = await import('../../src/mcp/context.js');
    const ctx = await openMcpContext({ db }, { HOOKRELAY_SECRET: SECRET, HOOKRELAY_FORWARD_TO: 'http://127.0.0.1:9/app', HOOKRELAY_ROUTE: route });
    cleanups.push(() => ctx.store.close());
    expect(ctx.redact(`failed: http://relay:${PASSWORD}@127.0.0.1:9/risky answered 503`)).not.toContain(PASSWORD);
  });
});

describe('hookrelay mcp: a secret cut by an answer\'s limit', () => {
  it('shows no part of a secret that a body or a header value holds across the cut, nor a kept secret of webhooks create --signing', async () => {
    const KEPT = 'whsec_kept_by_webhooks_create_0123456789';
    const body = Buffer.from(`${'x'.repeat(16 * 1024 - 20)}${SECRET}${'y'.repeat(100)}`);
    const { db, dir, remove } = await seededStore(async (store) => {
      const d = makeDelivery({ id: 'evt-cut', rawBody: body, rawHeaders: ['Content-Type', 'application/json', 'X-Echo', `${'z'.repeat(1990)}${SECRET}`, 'X-Kept', KEPT] });
      await store.accept(d, attemptFor(d));
    });
    cleanups.push(remove);
    const { addToSecretSet } = await import('../../src/service/secret-set.js');
    addToSecretSet(dir, { secret: KEPT, webhookId: 'wh_1', origin: 'test' }, Date.now());
    const h = await connect(db, { env: { HOOKRELAY_SECRET: SECRET } });
    cleanups.push(() => h.close());
    const shown = await h.call('show_delivery', { id: 'evt-cut' });
    expect(shown.result.isError).toBeFalsy();
    for (const part of [SECRET.slice(0, 12), KEPT.slice(0, 20)]) expect(shown.text).not.toContain(part);
  });
});
