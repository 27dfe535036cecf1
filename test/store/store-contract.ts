/** The one contract every DeliveryStore driver must pass. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RelayTargets } from '../../src/core/routes.js';
import { relayJobKey, type DeliveryStore } from '../../src/store/store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

export function describeStoreContract(name: string, open: (options?: { outbox?: boolean | RelayTargets }) => Promise<DeliveryStore>): void {
  describe(`${name}: store contract`, () => {
    let store: DeliveryStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('stores a new delivery byte for byte and reads it back', async () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"x","s":"\\u00e9 \\/ '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      const delivery = makeDelivery({ rawBody: body, rawHeaders: ['Content-Type', 'application/json', 'X-Odd', 'a: b', 'X-Odd', 'second'] });
      const result = await store.accept(delivery, attemptFor(delivery));
      expect(result.outcome).toBe('accepted');
      const stored = await store.getDelivery(delivery.id);
      expect(stored).toBeDefined();
      expect(Buffer.from(stored!.rawBody).equals(body)).toBe(true);
      expect(stored!.headers).toEqual([['Content-Type', 'application/json'], ['X-Odd', 'a: b'], ['X-Odd', 'second']]);
      expect(stored).toMatchObject({ id: delivery.id, trigger: delivery.trigger, apiVersion: '2026-06-01', apiVersionKnown: true, signature: 'valid', secretIndex: 0, duplicateCount: 0, seq: result.deliverySeq });
    });

    it('answers duplicate for an id already stored and keeps the first body', async () => {
      const first = makeDelivery();
      const copy = { ...first, rawBody: Buffer.from('{"changed":true}') };
      expect((await store.accept(first, attemptFor(first))).outcome).toBe('accepted');
      const again = await store.accept(copy, attemptFor(copy, { attemptHeader: 2, receivedAt: first.receivedAt + 5000 }));
      expect(again.outcome).toBe('duplicate');
      const stored = await store.getDelivery(first.id);
      expect(Buffer.from(stored!.rawBody).equals(first.rawBody)).toBe(true);
      expect(stored!.duplicateCount).toBe(1);
      expect(stored!.lastAttemptAt).toBe(first.receivedAt + 5000);
    });

    it('makes exactly one accepted delivery from concurrent copies of one id', async () => {
      const delivery = makeDelivery();
      const results = await Promise.all(Array.from({ length: 25 }, () => store.accept(delivery, attemptFor(delivery))));
      expect(results.filter((r) => r.outcome === 'accepted')).toHaveLength(1);
      expect(results.filter((r) => r.outcome === 'duplicate')).toHaveLength(24);
      expect(new Set(results.map((r) => r.deliverySeq)).size).toBe(1);
      expect((await store.listDeliveries({ limit: 100 })).items).toHaveLength(1);
    });

    it('records every attempt of a delivery id, stored or not, newest first', async () => {
      const delivery = makeDelivery();
      await store.recordAttempt(attemptFor(delivery, { outcome: 'faulted', status: 503, reason: 'fault:503', retryAfter: '120', attemptHeader: 1 }));
      await store.recordAttempt(attemptFor(delivery, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', attemptHeader: 2 }));
      await store.accept(delivery, attemptFor(delivery, { attemptHeader: 3 }));
      await store.accept(delivery, attemptFor(delivery, { attemptHeader: 4 }));
      const other = makeDelivery();
      await store.accept(other, attemptFor(other));
      const attempts = await store.listAttempts({ deliveryId: delivery.id, limit: 10 });
      expect(attempts.map((a) => [a.attemptHeader, a.outcome])).toEqual([
        [4, 'duplicate'],
        [3, 'accepted'],
        [2, 'rejected'],
        [1, 'faulted'],
      ]);
      expect(attempts[3]).toMatchObject({ status: 503, reason: 'fault:503', retryAfter: '120' });
      expect(await store.countArrivals(delivery.id)).toBe(4);
      const late = makeDelivery();
      await store.recordAttempt(attemptFor(late, { outcome: 'rejected', status: 400, reason: 'TIMESTAMP_TOO_OLD', receivedAt: delivery.receivedAt + 60_000 }));
      expect((await store.listAttempts({ since: delivery.receivedAt + 1, limit: 10 })).map((a) => a.deliveryId)).toEqual([late.id]);
      expect(await store.listAttempts({ deliveryId: late.id, since: delivery.receivedAt + 60_001, limit: 10 })).toEqual([]);
      expect(await store.countArrivals(other.id)).toBe(1);
      expect(await store.countArrivals('never-seen')).toBe(0);
      const rejected = await store.listAttempts({ outcomes: ['rejected'], limit: 10 });
      expect(rejected.map((a) => a.reason)).toEqual(['TIMESTAMP_TOO_OLD', 'SIGNATURE_MISMATCH']);
    });

    it('returns the seq of every attempt it writes, the one its lists give (the console merges live attempts by it)', async () => {
      const delivery = makeDelivery();
      const refused = await store.recordAttempt(attemptFor(delivery, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' }));
      const accepted = await store.accept(delivery, attemptFor(delivery));
      const duplicate = await store.accept(delivery, attemptFor(delivery));
      const lone = await store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISSING' }));
      const listed = (await store.listAttempts({ limit: 10 })).map((a) => a.seq);
      expect(listed).toEqual([lone, duplicate.attemptSeq, accepted.attemptSeq, refused]);
      expect(new Set(listed).size).toBe(4);
      expect(Math.min(...listed)).toBeGreaterThan(0);
    });

    it('records attempts that claim no id', async () => {
      await store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISSING' }));
      const all = await store.listAttempts({ limit: 10 });
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ deliveryId: null, reason: 'SIGNATURE_MISSING' });
    });

    it('lists newest first with a cursor and filters', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const d = makeDelivery({ trigger: i % 2 ? 'vendor.rating_dropped' : 'trustcenter.access_requested', rawBody: Buffer.from(`{"n":${i},"word":"needle${i}"}`) });
        ids.push(d.id);
        await store.accept(d, attemptFor(d));
      }
      const page1 = await store.listDeliveries({ limit: 3 });
      expect(page1.items.map((d) => d.id)).toEqual([ids[6], ids[5], ids[4]]);
      const page2 = await store.listDeliveries({ limit: 3, before: page1.nextCursor! });
      expect(page2.items.map((d) => d.id)).toEqual([ids[3], ids[2], ids[1]]);
      const page3 = await store.listDeliveries({ limit: 3, before: page2.nextCursor! });
      expect(page3.items.map((d) => d.id)).toEqual([ids[0]]);
      expect(page3.nextCursor).toBeNull();
      const vendors = await store.listDeliveries({ limit: 10, trigger: 'vendor.rating_dropped' });
      expect(vendors.items).toHaveLength(3);
      const text = await store.listDeliveries({ limit: 10, text: 'needle4' });
      expect(text.items.map((d) => d.id)).toEqual([ids[4]]);
      expect((await store.listDeliveries({ limit: 10, text: '%' })).items).toHaveLength(0);
      const dup = makeDelivery({ id: ids[2]! });
      await store.accept(dup, attemptFor(dup));
      expect((await store.listDeliveries({ limit: 10, duplicatesOnly: true })).items.map((d) => d.id)).toEqual([ids[2]]);
    });

    it('keeps the headers, raw body and hints of an attempt that stored nothing; lists read them only when asked', async () => {
      const delivery = makeDelivery();
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"x"}\n'), Buffer.from([0xff, 0x00])]);
      const headers: Array<[string, string]> = [['X-Service-Signature', 't=1,v1=ab'], ['X-Odd', 'a: b'], ['X-Odd', 'second'], ['Empty', '']];
      const hints = ['the signature matches secret #1 with a trailing newline added', 'second "hint"'];
      await store.recordAttempt(attemptFor(delivery, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', hints, request: { headers, body } }));
      // Over --body-limit: the body was never read, only the headers are kept.
      await store.recordAttempt(attemptFor(delivery, { outcome: 'rejected', status: 413, reason: 'PAYLOAD_TOO_LARGE', request: { headers: [['Content-Length', '99999']], body: null } }));
      await store.recordAttempt(attemptFor(delivery, { outcome: 'faulted', status: 503, reason: 'fault:503' }));
      await store.accept(delivery, attemptFor(delivery, { attemptHeader: 4 }));
      const copy = makeDelivery({ id: delivery.id, rawHeaders: ['X-Service-Delivery-Attempt', '5', 'X-Service-Signature', 't=5,v1=cd'] });
      await store.accept(copy, attemptFor(copy, { attemptHeader: 5 }));

      const light = await store.listAttempts({ deliveryId: delivery.id, limit: 10 });
      expect(light.map((a) => 'request' in a)).toEqual([false, false, false, false, false]);
      expect(light.map((a) => a.hints ?? null)).toEqual([null, null, null, null, hints]);
      const full = await store.listAttempts({ deliveryId: delivery.id, limit: 10, withRequest: true });
      expect(full.map((a) => a.outcome)).toEqual(['duplicate', 'accepted', 'faulted', 'rejected', 'rejected']);
      // A duplicate keeps the headers it came with; the accepted attempt's request is its delivery.
      expect(full[0]!.request).toEqual({ headers: [['X-Service-Delivery-Attempt', '5'], ['X-Service-Signature', 't=5,v1=cd']], body: null });
      expect(full[1]!.request).toBeNull();
      expect(full[2]!.request).toBeNull();
      expect(full[3]!.request).toEqual({ headers: [['Content-Length', '99999']], body: null });
      expect(full[4]!.request!.headers).toEqual(headers);
      expect(Buffer.from(full[4]!.request!.body!).equals(body)).toBe(true);
      expect(full[4]!.hints).toEqual(hints);
      // The same through the other reads of attempts.
      const rejected = await store.listAttempts({ outcomes: ['rejected'], limit: 10, withRequest: true });
      expect(Buffer.from(rejected[1]!.request!.body!).equals(body)).toBe(true);
      expect((await store.listAttempts({ limit: 10 })).some((a) => 'request' in a)).toBe(false);
    });

    it('deletes a delivery with its attempts', async () => {
      const delivery = makeDelivery();
      await store.recordAttempt(attemptFor(delivery, { outcome: 'faulted', status: 503, request: { headers: [['X-A', '1']], body: Buffer.from('kept') } }));
      await store.accept(delivery, attemptFor(delivery));
      expect(await store.deleteDelivery(delivery.id)).toBe(true);
      expect(await store.getDelivery(delivery.id)).toBeUndefined();
      expect(await store.listAttempts({ deliveryId: delivery.id, limit: 10 })).toEqual([]);
      expect(await store.listAttempts({ limit: 10, withRequest: true })).toEqual([]);
      expect(await store.deleteDelivery(delivery.id)).toBe(false);
    });

    it('makes no relay jobs when forwarding is off', async () => {
      const delivery = makeDelivery();
      await store.accept(delivery, attemptFor(delivery));
      expect(await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect((await store.relayHistory(delivery.id)).jobs).toEqual([]);
    });

    it('returns undefined for an unknown id', async () => {
      expect(await store.getDelivery('nope')).toBeUndefined();
      expect(await store.listAttempts({ deliveryId: 'nope', limit: 5 })).toEqual([]);
    });

    it('accepts each of 10 ids once from 50 concurrent accepts, and records every attempt under the seq it returned', async () => {
      const deliveries = Array.from({ length: 10 }, () => makeDelivery());
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const d = deliveries[i % 10]!;
          return store.accept(d, attemptFor(d, { attemptHeader: i + 1, receivedAt: d.receivedAt + i }));
        }),
      );
      expect(results.filter((r) => r.outcome === 'accepted')).toHaveLength(10);
      expect(results.filter((r) => r.outcome === 'duplicate')).toHaveLength(40);
      for (let k = 0; k < 10; k++) {
        const own = results.filter((_, i) => i % 10 === k);
        // The first of the copies in call order is the accepted one; each id has one seq.
        expect(own.map((r) => r.outcome)).toEqual(['accepted', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
        expect(new Set(own.map((r) => r.deliverySeq)).size).toBe(1);
        const stored = (await store.getDelivery(deliveries[k]!.id))!;
        expect(stored.seq).toBe(own[0]!.deliverySeq);
        expect(stored.duplicateCount).toBe(4);
        expect(stored.lastAttemptAt).toBe(deliveries[k]!.receivedAt + 40 + k);
        expect(await store.countArrivals(deliveries[k]!.id)).toBe(5);
      }
      const attempts = await store.listAttempts({ limit: 100 });
      expect(attempts).toHaveLength(50);
      // Each request's attemptSeq is the row written for it: its attempt header and outcome.
      const bySeq = new Map(attempts.map((a) => [a.seq, a]));
      results.forEach((r, i) => expect(bySeq.get(r.attemptSeq)).toMatchObject({ attemptHeader: i + 1, outcome: r.outcome, deliveryId: deliveries[i % 10]!.id }));
      expect((await store.listDeliveries({ limit: 100 })).items).toHaveLength(10);
    });

    it('keeps the first of two copies of one id sent at once, and the second as its duplicate with the headers it came with', async () => {
      const first = makeDelivery({ rawHeaders: ['X-Copy', 'first'] });
      const second = makeDelivery({ id: first.id, rawBody: Buffer.from('{"second":true}'), rawHeaders: ['X-Copy', 'second'] });
      const [a, b] = await Promise.all([
        store.accept(first, attemptFor(first, { attemptHeader: 1 })),
        store.accept(second, attemptFor(second, { attemptHeader: 2, receivedAt: first.receivedAt + 7 })),
      ]);
      expect([a.outcome, b.outcome]).toEqual(['accepted', 'duplicate']);
      expect(b.deliverySeq).toBe(a.deliverySeq);
      const stored = (await store.getDelivery(first.id))!;
      expect(Buffer.from(stored.rawBody).equals(first.rawBody)).toBe(true);
      expect(stored.headers).toEqual([['X-Copy', 'first']]);
      expect(stored).toMatchObject({ duplicateCount: 1, lastAttemptAt: first.receivedAt + 7 });
      const full = await store.listAttempts({ deliveryId: first.id, limit: 10, withRequest: true });
      expect(full.map((x) => [x.seq, x.outcome, x.request?.headers ?? null])).toEqual([
        [b.attemptSeq, 'duplicate', [['X-Copy', 'second']]],
        [a.attemptSeq, 'accepted', null],
      ]);
    });

    it('counts copies of an id stored earlier that arrive together with new ids', async () => {
      const old = makeDelivery();
      await store.accept(old, attemptFor(old));
      const fresh = makeDelivery();
      const results = await Promise.all([
        store.accept(old, attemptFor(old, { attemptHeader: 2 })),
        store.accept(fresh, attemptFor(fresh)),
        store.accept(old, attemptFor(old, { attemptHeader: 3, receivedAt: old.receivedAt + 9 })),
        store.accept(fresh, attemptFor(fresh, { attemptHeader: 2 })),
      ]);
      expect(results.map((r) => r.outcome)).toEqual(['duplicate', 'accepted', 'duplicate', 'duplicate']);
      expect(await store.getDelivery(old.id)).toMatchObject({ duplicateCount: 2, lastAttemptAt: old.receivedAt + 9 });
      expect(await store.getDelivery(fresh.id)).toMatchObject({ duplicateCount: 1, seq: results[1]!.deliverySeq });
      expect(await store.countArrivals(old.id)).toBe(3);
      expect(await store.countArrivals(fresh.id)).toBe(2);
    });
  });
}

export function describeRelayContract(name: string, open: (options?: { outbox?: boolean | RelayTargets }) => Promise<DeliveryStore>): void {
  describe(`${name}: relay outbox contract`, () => {
    let store: DeliveryStore;
    beforeEach(async () => {
      store = await open({ outbox: true });
    });
    afterEach(async () => {
      await store.close();
    });

    it('writes one job per accepted delivery, due at once, none for a duplicate', async () => {
      const delivery = makeDelivery();
      await store.accept(delivery, attemptFor(delivery));
      await store.accept(delivery, attemptFor(delivery, { attemptHeader: 2 }));
      const due = await store.dueRelayJobs(delivery.receivedAt, 10);
      expect(due).toHaveLength(1);
      const seq = due[0]!.job.deliverySeq;
      expect(due[0]!.job).toEqual({ deliverySeq: seq, deliveryId: delivery.id, state: 'pending', target: null, tries: 0, nextAt: delivery.receivedAt, lastStatus: null, lastError: null });
      // What a hand-off sends: exactly what the delivery holds (a store may give the rest of it too).
      const stored = (await store.getDelivery(delivery.id))!;
      expect(stored.headers.length).toBeGreaterThan(0);
      expect(due[0]!.delivery).toMatchObject({ seq, id: delivery.id, trigger: delivery.trigger, receivedAt: delivery.receivedAt, headers: stored.headers });
      expect(Buffer.from(due[0]!.delivery.rawBody).equals(delivery.rawBody)).toBe(true);
      expect(await store.dueRelayJobs(delivery.receivedAt - 1, 10)).toEqual([]);
      expect(await store.relayCounts()).toEqual({ pending: 1, held: 0, done: 0, dead: 0 });
    });

    it('leaves out the jobs a caller has in flight', async () => {
      const first = makeDelivery();
      const second = makeDelivery();
      const a = await store.accept(first, attemptFor(first));
      await store.accept(second, attemptFor(second));
      const now = Math.max(first.receivedAt, second.receivedAt);
      const due = await store.dueRelayJobs(now, 10, new Set([relayJobKey({ deliverySeq: a.deliverySeq, target: null })]));
      expect(due.map((d) => d.job.deliveryId)).toEqual([second.id]);
    });

    it('never moves a finished job back: an outcome that lands late is kept as a try, the job stays done', async () => {
      const delivery = makeDelivery();
      const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
      const t = delivery.receivedAt;
      const base = { deliverySeq, replay: false, target: 'http://127.0.0.1:1/hook' };
      await store.recordRelay({ ...base, startedAt: t + 10, finishedAt: t + 12, status: 200, error: null, try: 2, next: { state: 'done' } });
      // Try 1's write timed out for its worker and committed only now.
      await store.recordRelay({ ...base, startedAt: t, finishedAt: t + 5, status: 503, error: 'responded 503', try: 1, next: { state: 'pending', nextAt: t + 1000 } });
      const history = await store.relayHistory(delivery.id);
      expect(history.jobs).toMatchObject([{ state: 'done', tries: 2, lastStatus: 200 }]);
      expect(history.attempts).toHaveLength(2);
      expect(await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
    });

    it('moves a job through retry, dead, requeue and done, and keeps every try', async () => {
      const delivery = makeDelivery();
      const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
      const t = delivery.receivedAt;
      const base = { deliverySeq, replay: false, target: 'http://127.0.0.1:1/hook' };
      await store.recordRelay({ ...base, startedAt: t, finishedAt: t + 5, status: 500, error: 'responded 500', try: 1, next: { state: 'pending', nextAt: t + 1000 } });
      expect(await store.dueRelayJobs(t + 999, 10)).toEqual([]);
      expect((await store.dueRelayJobs(t + 1000, 10))[0]!.job).toEqual({ deliverySeq, deliveryId: delivery.id, state: 'pending', target: null, tries: 1, nextAt: t + 1000, lastStatus: 500, lastError: 'responded 500' });
      await store.recordRelay({ ...base, startedAt: t + 1000, finishedAt: t + 1001, status: null, error: 'ECONNREFUSED', try: 2, next: { state: 'dead' } });
      expect(await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect(await store.relayCounts()).toEqual({ pending: 0, held: 0, done: 0, dead: 1 });
      expect(await store.requeueRelay(delivery.id, t + 2000)).toBe(true);
      // Only a dead job goes back: it is pending again now, so a second requeue is refused.
      expect(await store.requeueRelay(delivery.id, t + 2000)).toBe(false);
      expect(await store.requeueRelay('unknown', t)).toBe(false);
      expect(await store.dueRelayJobs(t + 2000, 10)).toHaveLength(1);
      await store.recordRelay({ ...base, startedAt: t + 2000, finishedAt: t + 2003, status: 204, error: null, try: 3, next: { state: 'done' } });
      await store.recordRelay({ ...base, startedAt: t + 3000, finishedAt: t + 3003, status: 200, error: null, try: 1, replay: true, next: null });
      const history = await store.relayHistory(delivery.id);
      expect(history.jobs).toMatchObject([{ state: 'done', tries: 3, lastStatus: 204 }]);
      // A done job was handed on already: requeueing it would reach the app a second time.
      expect(await store.requeueRelay(delivery.id, t + 4000)).toBe(false);
      expect(await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect(history.attempts.map((a) => [a.try, a.status, a.error, a.replay])).toEqual([
        [1, 500, 'responded 500', false],
        [2, null, 'ECONNREFUSED', false],
        [3, 204, null, false],
        [1, 200, null, true],
      ]);
      expect(await store.relayCounts()).toEqual({ pending: 0, held: 0, done: 1, dead: 0 });
    });

    /** The store reopened routing vendor.* to an audit app and the rest to the app, with one delivery for each. */
    async function routedPair() {
      await store.close();
      const app = 'http://127.0.0.1:3000/webhooks';
      const audit = 'http://127.0.0.1:3001/audit';
      store = await open({ outbox: { to: app, routes: [{ glob: 'vendor.*', urls: [audit] }] } });
      const plain = makeDelivery();
      const vendor = makeDelivery({ trigger: 'vendor.rating_dropped' });
      const a = await store.accept(plain, attemptFor(plain));
      const b = await store.accept(vendor, attemptFor(vendor));
      return { app, audit, plain, vendor, a, b };
    }

    it('leaves out of a read the jobs of targets the caller skips (a target its pace closed), and only those', async () => {
      const { app, audit, plain, vendor } = await routedPair();
      const now = Math.max(plain.receivedAt, vendor.receivedAt);
      const skipped = await store.dueRelayJobs(now, 10, new Set(), [app]);
      expect(skipped.map((due) => due.delivery.id)).toEqual([vendor.id]);
      // Read again (on PostgreSQL this instance's claim returns it again): none of the skipped target's.
      expect((await store.dueRelayJobs(now, 10, new Set(), [app, audit])).map((due) => due.delivery.id)).toEqual([]);
      expect((await store.dueRelayJobs(now, 10, new Set(), [])).map((due) => due.delivery.id).sort()).toEqual([plain.id, vendor.id].sort());
    });

    it('queues each job for the target its trigger was routed to, holds the jobs of other targets, and moves them only by retarget', async () => {
      const { app, audit, plain, vendor, a, b } = await routedPair();
      const now = Math.max(plain.receivedAt, vendor.receivedAt);
      // Read without claiming (a claim on PostgreSQL leases the job, and a leased job is not held).
      expect((await store.relayHistory(plain.id)).jobs).toMatchObject([{ deliverySeq: a.deliverySeq, state: 'pending', target: app }]);
      expect((await store.relayHistory(vendor.id)).jobs).toMatchObject([{ deliverySeq: b.deliverySeq, state: 'pending', target: audit }]);

      // A run that hands on only to another app: both jobs are held, none is due for it.
      expect(await store.holdRelayJobs(['http://127.0.0.1:4000/other'], now)).toBe(2);
      expect(await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect(await store.relayCounts()).toEqual({ pending: 0, held: 2, done: 0, dead: 0 });
      const byTarget = (backlog: Awaited<ReturnType<DeliveryStore['relayBacklog']>>) => new Map(backlog.map((e) => [e.target, e]));
      expect(byTarget(await store.relayBacklog())).toEqual(new Map([
          [app, { target: app, pending: 0, held: 1, dead: 0, oldestOwedAt: plain.receivedAt, retrying: 0 }],
          [audit, { target: audit, pending: 0, held: 1, dead: 0, oldestOwedAt: vendor.receivedAt, retrying: 0 }],
        ]),
      );
      // Held jobs keep their deliveries from retention, as pending ones do.
      expect((await store.prune!(Number.MAX_SAFE_INTEGER, { dryRun: true })).keptPending).toBe(2);

      // A run that hands on to the app again takes its own job back; the audit job stays held.
      expect(await store.holdRelayJobs([app], now)).toBe(1);
      expect((await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 10)).map((d) => d.job.deliveryId)).toEqual([plain.id]);

      // Only retarget moves a job to another target; it is pending again there.
      expect(await store.retargetRelayJobs(audit, app, now)).toBe(1);
      expect(await store.retargetRelayJobs('http://127.0.0.1:9/none', app, now)).toBe(0);
      expect((await store.relayHistory(vendor.id)).jobs).toMatchObject([{ state: 'pending', target: app }]);
      expect(byTarget(await store.relayBacklog())).toEqual(new Map([[app, { target: app, pending: 2, held: 0, dead: 0, oldestOwedAt: Math.min(plain.receivedAt, vendor.receivedAt), retrying: 0 }]]));
    });

    it('reports per target the owed jobs, the oldest owed arrival and those retrying; a dead job is counted but owes nothing', async () => {
      const first = makeDelivery({ receivedAt: 1_700_000_000_000 });
      const second = makeDelivery({ receivedAt: 1_700_000_005_000 });
      const third = makeDelivery({ receivedAt: 1_700_000_009_000 });
      const seqs = [];
      for (const d of [first, second, third]) seqs.push((await store.accept(d, attemptFor(d))).deliverySeq);
      const target = 'http://127.0.0.1:1/hook';
      const base = { replay: false, target, error: 'responded 503', status: 503, try: 1, startedAt: third.receivedAt, finishedAt: third.receivedAt };
      // The oldest is given up on; the second failed once and waits for its retry.
      await store.recordRelay({ ...base, deliverySeq: seqs[0]!, next: { state: 'dead' } });
      await store.recordRelay({ ...base, deliverySeq: seqs[1]!, next: { state: 'pending', nextAt: third.receivedAt + 60_000 } });
      const backlog = await store.relayBacklog();
      expect(backlog).toHaveLength(1);
      expect(backlog[0]).toMatchObject({ pending: 2, held: 0, dead: 1, oldestOwedAt: second.receivedAt, retrying: 1 });
      await store.recordRelay({ ...base, status: 204, error: null, try: 2, deliverySeq: seqs[1]!, next: { state: 'done' } });
      await store.recordRelay({ ...base, status: 204, error: null, deliverySeq: seqs[2]!, next: { state: 'done' } });
      expect((await store.relayBacklog())[0]).toMatchObject({ pending: 0, dead: 1, oldestOwedAt: null, retrying: 0 });
    });

    it('reads the answers of the newest tries only, when asked to, and every try still in order', async () => {
      const delivery = makeDelivery();
      const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
      const t = delivery.receivedAt;
      for (let i = 1; i <= 6; i++) {
        const answer = { headers: [['x-try', String(i)]] as Array<[string, string]>, headerLines: 1, body: Buffer.from(`answer ${i}`), bodyBytes: 8, complete: true };
        await store.recordRelay({ deliverySeq, replay: true, target: 'http://127.0.0.1:1/hook', startedAt: t + i, finishedAt: t + i, status: 200, error: null, try: i, answer, next: null });
      }
      const bounded = await store.relayHistory(delivery.id, { withAnswers: true, answersOfNewest: 2 });
      expect(bounded.attempts.map((a) => a.try)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(bounded.attempts.map((a) => a.answer?.body.toString() ?? null)).toEqual([null, null, null, null, 'answer 5', 'answer 6']);
      const all = await store.relayHistory(delivery.id, { withAnswers: true });
      expect(all.attempts.map((a) => a.answer?.body.toString() ?? null)).toEqual([1, 2, 3, 4, 5, 6].map((i) => `answer ${i}`));
    });

    it('keeps what the target answered to each try, byte for byte, reads it only withAnswers, and deletes it with the try', async () => {
      const delivery = makeDelivery();
      const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
      const t = delivery.receivedAt;
      const base = { deliverySeq, replay: false, target: 'http://127.0.0.1:1/hook' };
      // Hostile bytes: markup, NUL, an ANSI escape, invalid UTF-8; exactly the 4096 bytes a try keeps.
      const head = Buffer.concat([Buffer.from('<script>alert(1)</script>\u0000\u001b[31m'), Buffer.from([0xff, 0xfe, 0xc3])]);
      const body = Buffer.concat([head, Buffer.alloc(4096 - head.length, 0x61)]);
      const failed = {
        headers: [['Content-Type', 'text/html'], ['X-Evil', '<script>\u00ff\u00fe\t</script>'], ['x-evil', 'second'], ['X-Json', '"[\\u0000]"']] as Array<[string, string]>,
        headerLines: 130,
        body,
        bodyBytes: 70_000,
        complete: false,
      };
      const empty = { headers: [] as Array<[string, string]>, headerLines: 0, body: Buffer.alloc(0), bodyBytes: 0, complete: true };
      await store.recordRelay({ ...base, startedAt: t, finishedAt: t + 5, status: 500, error: 'responded 500', try: 1, answer: failed, next: { state: 'pending', nextAt: t + 1000 } });
      await store.recordRelay({ ...base, startedAt: t + 1000, finishedAt: t + 1001, status: null, error: 'ECONNREFUSED', try: 2, answer: null, next: { state: 'pending', nextAt: t + 3000 } });
      await store.recordRelay({ ...base, startedAt: t + 3000, finishedAt: t + 3002, status: 204, error: null, try: 3, answer: empty, next: { state: 'done' } });
      // An older caller that passes no answer at all.
      await store.recordRelay({ ...base, startedAt: t + 4000, finishedAt: t + 4001, status: 200, error: null, try: 1, replay: true, next: null });

      const light = await store.relayHistory(delivery.id);
      expect(light.attempts.map((a) => 'answer' in a)).toEqual([false, false, false, false]);
      const full = await store.relayHistory(delivery.id, { withAnswers: true });
      const shown = full.attempts.map((a) => (a.answer ? { ...a.answer, body: Buffer.from(a.answer.body).toString('hex') } : a.answer));
      expect(shown).toEqual([{ ...failed, body: body.toString('hex') }, null, { ...empty, body: '' }, null]);
      expect(full.attempts.map((a) => [a.try, a.status])).toEqual([[1, 500], [2, null], [3, 204], [1, 200]]);

      expect(await store.deleteDelivery(delivery.id)).toBe(true);
      expect((await store.relayHistory(delivery.id, { withAnswers: true })).attempts).toEqual([]);
    });

    it('writes one job per accepted delivery from concurrent accepts with copies, none for a copy', async () => {
      const deliveries = Array.from({ length: 5 }, () => makeDelivery());
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.accept(deliveries[i % 5]!, attemptFor(deliveries[i % 5]!, { attemptHeader: i + 1 }))));
      expect(results.filter((r) => r.outcome === 'accepted')).toHaveLength(5);
      expect(await store.relayCounts()).toEqual({ pending: 5, held: 0, done: 0, dead: 0 });
      const due = await store.dueRelayJobs(Number.MAX_SAFE_INTEGER, 50);
      expect(new Set(due.map((d) => d.job.deliverySeq))).toEqual(new Set(results.filter((r) => r.outcome === 'accepted').map((r) => r.deliverySeq)));
    });

    /** The store reopened with fan-out: vendor.* to the app and an audit app, and every trigger also to a log. */
    async function fannedOut() {
      await store.close();
      const app = 'http://127.0.0.1:3000/webhooks';
      const audit = 'http://127.0.0.1:3001/audit';
      const log = 'http://127.0.0.1:3002/log';
      store = await open({ outbox: { to: app, routes: [{ glob: 'vendor.*', urls: [app, audit] }, { glob: '*', urls: [log], also: true }] } });
      const plain = makeDelivery();
      const vendor = makeDelivery({ trigger: 'vendor.rating_dropped' });
      const a = await store.accept(plain, attemptFor(plain));
      const b = await store.accept(vendor, attemptFor(vendor));
      const base = { replay: false, startedAt: vendor.receivedAt, finishedAt: vendor.receivedAt + 1 };
      return { app, audit, log, plain, vendor, a, b, base };
    }

    it('queues one job per target of a delivery (fan-out), none for a duplicate, each read and skipped on its own', async () => {
      const { app, audit, log, plain, vendor, a, b } = await fannedOut();
      await store.accept(vendor, attemptFor(vendor, { attemptHeader: 2 }));
      expect((await store.relayHistory(plain.id)).jobs.map((j) => [j.deliverySeq, j.target, j.state])).toEqual([[a.deliverySeq, app, 'pending'], [a.deliverySeq, log, 'pending']]);
      expect((await store.relayHistory(vendor.id)).jobs.map((j) => [j.deliverySeq, j.target, j.state])).toEqual([[b.deliverySeq, app, 'pending'], [b.deliverySeq, audit, 'pending'], [b.deliverySeq, log, 'pending']]);
      expect(await store.relayCounts()).toEqual({ pending: 5, held: 0, done: 0, dead: 0 });
      const now = Math.max(plain.receivedAt, vendor.receivedAt);
      const due = await store.dueRelayJobs(now, 50);
      expect(due.map((d) => relayJobKey(d.job)).sort()).toEqual([`${a.deliverySeq}|${app}`, `${a.deliverySeq}|${log}`, `${b.deliverySeq}|${app}`, `${b.deliverySeq}|${audit}`, `${b.deliverySeq}|${log}`].sort());
      for (const entry of due) expect(Buffer.from(entry.delivery.rawBody).equals(entry.job.deliveryId === plain.id ? plain.rawBody : vendor.rawBody)).toBe(true);
      // Holding one target's job of a delivery leaves its other targets' jobs due.
      const skip = new Set([relayJobKey({ deliverySeq: b.deliverySeq, target: audit }), relayJobKey({ deliverySeq: a.deliverySeq, target: app })]);
      const rest = await store.dueRelayJobs(now, 50, skip);
      expect(rest.map((d) => relayJobKey(d.job)).sort()).toEqual([`${a.deliverySeq}|${log}`, `${b.deliverySeq}|${app}`, `${b.deliverySeq}|${log}`].sort());
      // A target skipped by pace leaves out its jobs only.
      expect((await store.dueRelayJobs(now, 50, skip, [log])).map((d) => relayJobKey(d.job))).toEqual([`${b.deliverySeq}|${app}`]);
      const backlog = new Map((await store.relayBacklog()).map((e) => [e.target, e.pending]));
      expect(backlog).toEqual(new Map([[app, 2], [audit, 1], [log, 2]]));
    });

    it('moves each target\'s job of a delivery by its own tries: one done, one retrying, one dead, requeued by target', async () => {
      const { app, audit, log, vendor, b, base } = await fannedOut();
      const seq = b.deliverySeq;
      await store.recordRelay({ ...base, deliverySeq: seq, target: app, status: 204, error: null, try: 1, next: { state: 'done' } });
      await store.recordRelay({ ...base, deliverySeq: seq, target: audit, status: 503, error: 'responded 503', try: 1, next: { state: 'pending', nextAt: base.finishedAt + 60_000 } });
      await store.recordRelay({ ...base, deliverySeq: seq, target: log, status: null, error: 'ECONNREFUSED', try: 1, next: { state: 'dead' } });
      const history = await store.relayHistory(vendor.id);
      expect(history.jobs.map((j) => [j.target, j.state, j.tries, j.lastStatus])).toEqual([[app, 'done', 1, 204], [audit, 'pending', 1, 503], [log, 'dead', 1, null]]);
      expect(history.attempts.map((t) => [t.target, t.status])).toEqual([[app, 204], [audit, 503], [log, null]]);
      // Due: only the audit job, and only once its retry is due.
      expect((await store.dueRelayJobs(base.finishedAt + 59_999, 50)).filter((d) => d.job.deliverySeq === seq)).toEqual([]);
      expect((await store.dueRelayJobs(base.finishedAt + 60_000, 50)).filter((d) => d.job.deliverySeq === seq).map((d) => d.job.target)).toEqual([audit]);
      // A requeue for a target whose job is not dead moves nothing; for the dead one's target, that job only.
      expect(await store.requeueRelay(vendor.id, base.finishedAt, app)).toBe(false);
      expect(await store.requeueRelay(vendor.id, base.finishedAt, audit)).toBe(false);
      expect(await store.requeueRelay(vendor.id, base.finishedAt, log)).toBe(true);
      expect((await store.relayHistory(vendor.id)).jobs.map((j) => [j.target, j.state])).toEqual([[app, 'done'], [audit, 'pending'], [log, 'pending']]);
      // A done job never moves back, whatever lands late for it.
      await store.recordRelay({ ...base, deliverySeq: seq, target: app, status: 500, error: 'responded 500', try: 1, next: { state: 'pending', nextAt: base.finishedAt } });
      expect((await store.relayHistory(vendor.id)).jobs[0]).toMatchObject({ target: app, state: 'done', lastStatus: 204 });
      // Without a target, every dead job of the delivery goes back.
      await store.recordRelay({ ...base, deliverySeq: seq, target: audit, status: 410, error: 'responded 410', try: 2, next: { state: 'dead' } });
      await store.recordRelay({ ...base, deliverySeq: seq, target: log, status: 410, error: 'responded 410', try: 2, next: { state: 'dead' } });
      expect(await store.relayCounts()).toEqual({ pending: 2, held: 0, done: 1, dead: 2 });
      expect(await store.requeueRelay(vendor.id, base.finishedAt)).toBe(true);
      expect(await store.relayCounts()).toEqual({ pending: 4, held: 0, done: 1, dead: 0 });
    });

    it('keeps a fanned-out delivery while any of its targets is owed, and prunes it with every job once none is', async () => {
      const { app, audit, log, vendor, b, base } = await fannedOut();
      const seq = b.deliverySeq;
      await store.recordRelay({ ...base, deliverySeq: seq, target: app, status: 204, error: null, try: 1, next: { state: 'done' } });
      await store.recordRelay({ ...base, deliverySeq: seq, target: audit, status: 204, error: null, try: 1, next: { state: 'done' } });
      // The plain delivery's two jobs and the vendor's log job are owed: both deliveries stay.
      const kept = await store.prune!(Number.MAX_SAFE_INTEGER, { dryRun: true });
      expect(kept).toMatchObject({ deliveries: 0, keptPending: 2 });
      await store.recordRelay({ ...base, deliverySeq: seq, target: log, status: null, error: 'ECONNREFUSED', try: 1, next: { state: 'dead' } });
      const pruned = await store.prune!(Number.MAX_SAFE_INTEGER);
      expect(pruned).toMatchObject({ deliveries: 1, keptPending: 1, relayAttempts: 3 });
      expect(await store.getDelivery(vendor.id)).toBeUndefined();
      expect((await store.relayHistory(vendor.id)).jobs).toEqual([]);
      expect(await store.relayCounts()).toEqual({ pending: 2, held: 0, done: 0, dead: 0 });
    });

    it('retargets a fanned-out job onto a target its delivery already has by merging it: a delivery reaches a target once', async () => {
      const { app, audit, log, plain, vendor, a, b } = await fannedOut();
      const now = Math.max(plain.receivedAt, vendor.receivedAt);
      // The audit app is gone: its job moves to the log, which the vendor delivery has a job for already.
      expect(await store.retargetRelayJobs(audit, log, now)).toBe(1);
      expect((await store.relayHistory(vendor.id)).jobs.map((j) => j.target)).toEqual([app, log]);
      // The log's jobs move to a new target: one job each, none merged.
      const archive = 'http://127.0.0.1:3003/archive';
      expect(await store.retargetRelayJobs(log, archive, now)).toBe(2);
      expect((await store.relayHistory(plain.id)).jobs.map((j) => j.target).sort()).toEqual([app, archive].sort());
      const due = await store.dueRelayJobs(now, 50);
      expect(due.map((d) => relayJobKey(d.job)).sort()).toEqual([`${a.deliverySeq}|${app}`, `${a.deliverySeq}|${archive}`, `${b.deliverySeq}|${app}`, `${b.deliverySeq}|${archive}`].sort());
      // Onto itself: every job stays (held ones pending again), none is merged away.
      expect(await store.holdRelayJobs([app], now)).toBe(2);
      expect(await store.retargetRelayJobs(archive, archive, now)).toBe(2);
      expect(await store.relayCounts()).toEqual({ pending: 4, held: 0, done: 0, dead: 0 });
    });

    it('retargets onto a target whose job of the delivery is dead by making that job owed again: the delivery still reaches it', async () => {
      const { app, audit, log, vendor, b, base } = await fannedOut();
      const seq = b.deliverySeq;
      await store.recordRelay({ ...base, deliverySeq: seq, target: app, status: 410, error: 'responded 410', try: 1, next: { state: 'dead' } });
      await store.recordRelay({ ...base, deliverySeq: seq, target: audit, status: 204, error: null, try: 1, next: { state: 'done' } });
      // The log's job (owed) goes to the app, whose job of this delivery is dead: the app is owed it again.
      expect(await store.retargetRelayJobs(log, app, base.finishedAt + 5)).toBe(2);
      const jobs = (await store.relayHistory(vendor.id)).jobs.map((j) => [j.target, j.state]).sort();
      expect(jobs).toEqual([[app, 'pending'], [audit, 'done']].sort());
      expect((await store.dueRelayJobs(base.finishedAt + 5, 50)).filter((d) => d.job.deliverySeq === seq).map((d) => d.job.target)).toEqual([app]);
    });

    it('moves the job of a target whose URL holds credentials by its queued URL, while its tries show the URL without them', async () => {
      await store.close();
      const secretive = 'http://relay:Hunter2Pass@127.0.0.1:3004/hook';
      const plain = 'http://127.0.0.1:3000/webhooks';
      store = await open({ outbox: { to: plain, routes: [{ glob: '*', urls: [secretive], also: true }] } });
      const delivery = makeDelivery();
      const { deliverySeq } = await store.accept(delivery, attemptFor(delivery));
      const shown = 'http://[redacted]@127.0.0.1:3004/hook';
      await store.recordRelay({ deliverySeq, replay: false, startedAt: delivery.receivedAt, finishedAt: delivery.receivedAt + 1, status: 204, error: null, try: 1, target: shown, jobTarget: secretive, next: { state: 'done' } });
      const history = await store.relayHistory(delivery.id);
      expect(history.jobs.map((j) => [j.target, j.state])).toEqual([[plain, 'pending'], [secretive, 'done']]);
      expect(history.attempts.map((a) => a.target)).toEqual([shown]);
    });

    it('holds a fanned-out delivery\'s jobs for the targets a run does not hand on to, and only those', async () => {
      const { app, audit, log, vendor, plain } = await fannedOut();
      const now = Math.max(plain.receivedAt, vendor.receivedAt);
      expect(await store.holdRelayJobs([app, log], now)).toBe(1);
      expect((await store.relayHistory(vendor.id)).jobs.map((j) => [j.target, j.state])).toEqual([[app, 'pending'], [audit, 'held'], [log, 'pending']]);
      expect((await store.dueRelayJobs(now, 50)).filter((d) => d.job.deliveryId === vendor.id).map((d) => d.job.target).sort()).toEqual([app, log].sort());
    });
  });
}

const DAY = 86_400_000;

/** Retention (`prune`) and `stats`: every driver must offer both. */
export function describeRetentionContract(name: string, open: (options?: { outbox?: boolean | RelayTargets }) => Promise<DeliveryStore>): void {
  describe(`${name}: retention and stats contract`, () => {
    let store: DeliveryStore;
    beforeEach(async () => {
      store = await open({ outbox: true });
    });
    afterEach(async () => {
      await store.close();
    });

    const at = (receivedAt: number) => makeDelivery({ receivedAt });
    const accept = async (d: ReturnType<typeof makeDelivery>, receivedAt = d.receivedAt) =>
      store.accept(d, attemptFor(d, { receivedAt, finishedAt: receivedAt + 1 }));
    const T = 1_763_719_200_000;

    it('offers prune and stats', () => {
      expect(typeof store.prune).toBe('function');
      expect(typeof store.stats).toBe('function');
    });

    it('prunes old deliveries with their attempts and relay history, never one whose relay is pending', async () => {
      const target = 'http://127.0.0.1:1/hook';
      const done = at(T - 40 * DAY);
      const dead = at(T - 40 * DAY);
      const pending = at(T - 40 * DAY);
      const recent = at(T - DAY);
      const doneSeq = (await accept(done)).deliverySeq;
      await store.recordRelay({ deliverySeq: doneSeq, startedAt: done.receivedAt, finishedAt: done.receivedAt + 3, status: 204, error: null, replay: false, target, try: 1, next: { state: 'done' } });
      const deadSeq = (await accept(dead)).deliverySeq;
      await store.recordRelay({ deliverySeq: deadSeq, startedAt: dead.receivedAt, finishedAt: dead.receivedAt + 3, status: 500, error: null, replay: false, target, try: 1, next: { state: 'dead' } });
      await accept(dead, dead.receivedAt + 60_000); // a duplicate: one more attempt that goes with it
      await accept(pending);
      await store.recordAttempt(attemptFor(pending, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', receivedAt: T - 41 * DAY }));
      await store.recordAttempt(attemptFor(at(0), { deliveryId: 'ghost', outcome: 'rejected', status: 400, reason: 'TIMESTAMP_TOO_OLD', receivedAt: T - 40 * DAY }));
      await accept(recent);
      await store.recordAttempt(attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISSING', receivedAt: T }));

      const before = T - 30 * DAY;
      const expected = { before, deliveries: 2, attempts: 4, relayAttempts: 2, keptPending: 1 };
      expect(await store.prune!(before, { dryRun: true })).toEqual({ ...expected, dryRun: true });
      expect((await store.stats!()).deliveries).toBe(4);

      expect(await store.prune!(before)).toEqual({ ...expected, dryRun: false });
      expect(await store.getDelivery(done.id)).toBeUndefined();
      expect(await store.getDelivery(dead.id)).toBeUndefined();
      expect(await store.getDelivery(pending.id)).toBeDefined();
      expect(await store.getDelivery(recent.id)).toBeDefined();
      expect(await store.listAttempts({ deliveryId: dead.id, limit: 10 })).toEqual([]);
      expect(await store.listAttempts({ deliveryId: 'ghost', limit: 10 })).toEqual([]);
      // The pending delivery keeps its whole history, the refused attempt that claims it too.
      expect((await store.listAttempts({ deliveryId: pending.id, limit: 10 })).map((a) => a.outcome)).toEqual(['rejected', 'accepted']);
      expect((await store.relayHistory(pending.id)).jobs).toMatchObject([{ state: 'pending' }]);
      expect((await store.relayHistory(done.id)).attempts).toEqual([]);
      expect((await store.listAttempts({ outcomes: ['rejected'], limit: 10 })).map((a) => a.reason)).toEqual(['SIGNATURE_MISSING', 'SIGNATURE_MISMATCH']);
      expect(await store.relayCounts()).toEqual({ pending: 2, held: 0, done: 0, dead: 0 });
      // Nothing left to remove; the pending one is still owed to the target.
      expect(await store.prune!(before)).toEqual({ before, deliveries: 0, attempts: 0, relayAttempts: 0, keptPending: 1, dryRun: false });
      // A done relay releases it.
      await store.recordRelay({ deliverySeq: (await store.getDelivery(pending.id))!.seq, startedAt: T, finishedAt: T + 1, status: 200, error: null, replay: false, target, try: 1, next: { state: 'done' } });
      expect(await store.prune!(before)).toMatchObject({ deliveries: 1, attempts: 2, relayAttempts: 1, keptPending: 0 });
    });

    it('prunes what a refused attempt kept with the attempt, by its own age', async () => {
      const old = { headers: [['X-Old', '1']] as Array<[string, string]>, body: Buffer.alloc(4096, 0x61) };
      const fresh = { headers: [['X-Fresh', '1']] as Array<[string, string]>, body: Buffer.from('{"fresh":true}') };
      await store.recordAttempt(attemptFor(at(0), { deliveryId: 'old', outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', receivedAt: T - 40 * DAY, hints: ['h'], request: old }));
      await store.recordAttempt(attemptFor(at(0), { deliveryId: 'fresh', outcome: 'faulted', status: 503, reason: 'fault:503', receivedAt: T - DAY, request: fresh }));
      expect(await store.prune!(T - 30 * DAY)).toMatchObject({ deliveries: 0, attempts: 1 });
      const left = await store.listAttempts({ limit: 10, withRequest: true });
      expect(left.map((a) => a.deliveryId)).toEqual(['fresh']);
      expect(Buffer.from(left[0]!.request!.body!).equals(fresh.body)).toBe(true);
      expect(await store.listAttempts({ deliveryId: 'old', limit: 10, withRequest: true })).toEqual([]);
    });

    it('keeps dedupe within the window: a retry 72 h later is still a duplicate, and a delivery seen lately stays', async () => {
      const retention = 30 * DAY;
      const first = at(T);
      await accept(first);
      const retryAt = T + 72 * 3_600_000;
      expect(await store.prune!(retryAt - retention)).toMatchObject({ deliveries: 0 });
      expect((await accept(first, retryAt)).outcome).toBe('duplicate');
      // Received 40 days before, retried yesterday: last seen within the window, kept.
      const old = at(T - 40 * DAY);
      await accept(old);
      await store.recordRelay({ deliverySeq: (await store.getDelivery(old.id))!.seq, startedAt: T, finishedAt: T, status: 200, error: null, replay: false, target: 'http://127.0.0.1:1/', try: 1, next: { state: 'done' } });
      await accept(old, T - DAY);
      expect(await store.prune!(T - retention)).toMatchObject({ deliveries: 0 });
      expect((await accept(old, T)).outcome).toBe('duplicate');
    });

    it('counts what is stored', async () => {
      expect(await store.stats!()).toEqual({
        deliveries: 0,
        attempts: { accepted: 0, duplicate: 0, rejected: 0, faulted: 0, unavailable: 0 },
        relayJobs: { pending: 0, held: 0, done: 0, dead: 0 },
        oldestReceivedAt: null,
        newestReceivedAt: null,
      });
      const a = at(T - DAY);
      const b = at(T);
      await accept(a);
      await accept(b);
      await accept(b, T + 5);
      await store.recordAttempt(attemptFor(null, { outcome: 'faulted', status: 503, receivedAt: T }));
      await store.recordAttempt(attemptFor(null, { outcome: 'unavailable', status: 503, receivedAt: T }));
      expect(await store.stats!()).toEqual({
        deliveries: 2,
        attempts: { accepted: 2, duplicate: 1, rejected: 0, faulted: 1, unavailable: 1 },
        relayJobs: { pending: 2, held: 0, done: 0, dead: 0 },
        oldestReceivedAt: T - DAY,
        newestReceivedAt: T,
      });
    });
  });
}

/** The bridge's reads and cursors (`deliveriesAfter`, subscribers), and `prune` keeping what a cursor still owes. */
export function describeBridgeContract(name: string, open: (options?: { outbox?: boolean | RelayTargets }) => Promise<DeliveryStore>): void {
  describe(`${name}: bridge contract`, () => {
    let store: DeliveryStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    const T = 1_763_719_200_000;
    const acceptAll = async (deliveries: Array<ReturnType<typeof makeDelivery>>) =>
      Promise.all(deliveries.map(async (d) => ({ d, seq: (await store.accept(d, attemptFor(d))).deliverySeq })));
    /** Every delivery after 0 that passes `triggers`, read `limit` at a time as a subscriber would. */
    const pageThrough = async (limit: number, triggers?: readonly string[]) => {
      const seen: Array<{ seq: number; trigger: string }> = [];
      for (let after = 0; ; ) {
        const page = await store.deliveriesAfter(after, limit, triggers);
        expect(page.length).toBeLessThanOrEqual(limit);
        if (page.length === 0) return seen;
        seen.push(...page.map((d) => ({ seq: d.seq, trigger: d.trigger })));
        after = page[page.length - 1]!.seq;
      }
    };

    it('reads the deliveries after a seq, oldest first, at most limit, byte for byte', async () => {
      expect(await store.latestDeliverySeq()).toBe(0);
      expect(await store.deliveriesAfter(0, 10)).toEqual([]);
      const stored: Array<{ d: ReturnType<typeof makeDelivery>; seq: number }> = [];
      for (let i = 0; i < 5; i++) {
        const d = makeDelivery({ rawBody: Buffer.from([0xef, 0xbb, 0xbf, 0x7b, i, 0xff, 0x7d]) });
        stored.push({ d, seq: (await store.accept(d, attemptFor(d))).deliverySeq });
      }
      const seqs = stored.map((s) => s.seq);
      const first = await store.deliveriesAfter(0, 3);
      expect(first.map((d) => d.seq)).toEqual(seqs.slice(0, 3));
      expect(first.map((d) => d.id)).toEqual(stored.slice(0, 3).map((s) => s.d.id));
      expect(first.every((d, i) => Buffer.from(d.rawBody).equals(stored[i]!.d.rawBody))).toBe(true);
      expect((await store.deliveriesAfter(seqs[2]!, 10)).map((d) => d.seq)).toEqual(seqs.slice(3));
      expect(await store.deliveriesAfter(seqs[4]!, 10)).toEqual([]);
      expect(await store.deliveriesAfter(0, 0)).toEqual([]);
      expect(await store.latestDeliverySeq()).toBe(seqs[4]);
      // A duplicate stores nothing new: no new seq to send.
      await store.accept(stored[0]!.d, attemptFor(stored[0]!.d, { attemptHeader: 2 }));
      expect(await store.latestDeliverySeq()).toBe(seqs[4]);
      expect((await store.deliveriesAfter(0, 10)).map((d) => d.seq)).toEqual(seqs);
    });

    it('filters by trigger globs, and pages correctly through many deliveries that do not match', async () => {
      const triggerOf = (i: number) => (i % 50 === 0 ? 'vendor.rating_dropped' : i % 50 === 1 ? 'x_y' : i % 50 === 2 ? 'xzy' : 'trustcenter.access_requested');
      const stored = await acceptAll(Array.from({ length: 600 }, (_, i) => makeDelivery({ trigger: triggerOf(i) })));
      const expected = (test: (trigger: string) => boolean) =>
        stored.filter((s) => test(s.d.trigger)).map((s) => ({ seq: s.seq, trigger: s.d.trigger })).sort((a, b) => a.seq - b.seq);
      expect(await pageThrough(5, ['vendor.*'])).toEqual(expected((t) => t.startsWith('vendor.')));
      expect(await pageThrough(4, ['vendor.rating_drop?ed', 'x?y'])).toEqual(expected((t) => t !== 'trustcenter.access_requested'));
      // `_` and `%` are no wildcards here, whatever the driver's SQL makes of them.
      expect(await pageThrough(3, ['x_y'])).toEqual(expected((t) => t === 'x_y'));
      expect(await pageThrough(3, ['x%'])).toEqual([]);
      expect(await pageThrough(7, ['*'])).toEqual(expected(() => true));
      expect(await store.deliveriesAfter(0, 1000, ['nothing.*'])).toEqual([]);
      // No globs, or an empty list: everything.
      expect((await store.deliveriesAfter(0, 1000, [])).length).toBe(600);
      expect((await store.deliveriesAfter(0, 1000)).map((d) => d.seq)).toEqual(expected(() => true).map((s) => s.seq));
    });

    it('counts what deliveriesAfter would give between two seqs, under the same trigger globs', async () => {
      const triggerOf = (i: number) => (i % 3 === 0 ? 'vendor.rating_dropped' : i % 3 === 1 ? 'x_y' : 'trustcenter.access_requested');
      const stored = (await acceptAll(Array.from({ length: 30 }, (_, i) => makeDelivery({ trigger: triggerOf(i) })))).sort((a, b) => a.seq - b.seq);
      const from = stored[4]!.seq;
      const upTo = stored[24]!.seq;
      const between = stored.filter((s) => s.seq > from && s.seq <= upTo);
      expect(await store.countDeliveriesAfter(from, upTo)).toBe(20);
      expect(await store.countDeliveriesAfter(from, upTo, [])).toBe(20);
      expect(await store.countDeliveriesAfter(from, upTo, ['vendor.*'])).toBe(between.filter((s) => s.d.trigger.startsWith('vendor.')).length);
      expect(await store.countDeliveriesAfter(from, upTo, ['x_y', 'vendor.rating_drop?ed'])).toBe(between.filter((s) => s.d.trigger !== 'trustcenter.access_requested').length);
      expect(await store.countDeliveriesAfter(from, upTo, ['x%'])).toBe(0);
      expect(await store.countDeliveriesAfter(upTo, from)).toBe(0);
      expect(await store.countDeliveriesAfter(0, stored[29]!.seq, ['vendor.*'])).toBe((await store.deliveriesAfter(0, 1000, ['vendor.*'])).length);
    });

    it('registers a subscriber once: a second register never moves it', async () => {
      expect(await store.bridgeCursor('laptop')).toBeNull();
      expect(await store.registerBridgeSubscriber('laptop', 5, T)).toEqual({ name: 'laptop', ackedSeq: 5, updatedAt: T });
      expect(await store.registerBridgeSubscriber('laptop', 9, T + 1)).toEqual({ name: 'laptop', ackedSeq: 5, updatedAt: T });
      expect(await store.bridgeCursor('laptop')).toEqual({ name: 'laptop', ackedSeq: 5, updatedAt: T });
      const raced = await Promise.all(Array.from({ length: 10 }, (_, i) => store.registerBridgeSubscriber('ci', i, T)));
      expect(new Set(raced.map((c) => c.ackedSeq)).size).toBe(1);
      expect(await store.bridgeCursor('ci')).toEqual(raced[0]);
    });

    it('moves a cursor forward only, and lists every subscriber by name', async () => {
      await store.registerBridgeSubscriber('laptop-ana', 0, T);
      await store.ackBridge('laptop-ana', 7, T + 1);
      expect(await store.bridgeCursor('laptop-ana')).toEqual({ name: 'laptop-ana', ackedSeq: 7, updatedAt: T + 1 });
      await store.ackBridge('laptop-ana', 3, T + 2);
      expect(await store.bridgeCursor('laptop-ana')).toEqual({ name: 'laptop-ana', ackedSeq: 7, updatedAt: T + 1 });
      // The same seq again refreshes the time (a connected but quiet subscriber keeps holding retention).
      await store.ackBridge('laptop-ana', 7, T + 3);
      expect(await store.bridgeCursor('laptop-ana')).toEqual({ name: 'laptop-ana', ackedSeq: 7, updatedAt: T + 3 });
      await Promise.all([12, 9, 11, 10].map((seq, i) => store.ackBridge('laptop-ana', seq, T + 10 + i)));
      expect((await store.bridgeCursor('laptop-ana'))!.ackedSeq).toBe(12);
      // Acknowledging for a name never registered creates it there.
      await store.ackBridge('build-box', 4, T);
      await store.registerBridgeSubscriber('ci', 0, T);
      expect((await store.bridgeCursors()).map((c) => [c.name, c.ackedSeq])).toEqual([['build-box', 4], ['ci', 0], ['laptop-ana', 12]]);
    });

    it('refuses a cursor no driver could store faithfully', async () => {
      await expect(store.ackBridge('laptop', -1, T)).rejects.toThrow(/non-negative integer/);
      await expect(store.ackBridge('laptop', Number.NaN, T)).rejects.toThrow(/non-negative integer/);
      await expect(store.ackBridge('laptop', 1.5, T)).rejects.toThrow(/non-negative integer/);
      await expect(store.registerBridgeSubscriber('', 0, T)).rejects.toThrow(/non-empty name/);
      expect(await store.bridgeCursors()).toEqual([]);
    });

    it('never prunes a delivery above keepAfterSeq, nor the refused attempts that claim it', async () => {
      const old = T - 40 * DAY;
      const [a, b, c] = [0, 1, 2].map(() => makeDelivery({ receivedAt: old }));
      const seqA = (await store.accept(a!, attemptFor(a!, { receivedAt: old }))).deliverySeq;
      await store.accept(b!, attemptFor(b!, { receivedAt: old }));
      await store.accept(c!, attemptFor(c!, { receivedAt: old }));
      await store.recordAttempt(attemptFor(c!, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', receivedAt: old - 1 }));
      const recent = makeDelivery({ receivedAt: T });
      await store.accept(recent, attemptFor(recent, { receivedAt: T }));
      const before = T - 30 * DAY;

      expect(await store.prune(before, { dryRun: true, keepAfterSeq: seqA })).toEqual({ before, deliveries: 1, attempts: 1, relayAttempts: 0, keptPending: 0, dryRun: true });
      expect(await store.prune(before, { keepAfterSeq: seqA })).toEqual({ before, deliveries: 1, attempts: 1, relayAttempts: 0, keptPending: 0, dryRun: false });
      expect(await store.getDelivery(a!.id)).toBeUndefined();
      expect((await store.deliveriesAfter(0, 10)).map((d) => d.id)).toEqual([b!.id, c!.id, recent.id]);
      expect((await store.listAttempts({ deliveryId: c!.id, limit: 10 })).map((x) => x.outcome)).toEqual(['rejected', 'accepted']);
      // Once the cursor moved past them (or no subscriber holds them), they go by age alone.
      expect(await store.prune(before, { keepAfterSeq: Number.MAX_SAFE_INTEGER })).toMatchObject({ deliveries: 2, attempts: 3 });
      expect((await store.deliveriesAfter(0, 10)).map((d) => d.id)).toEqual([recent.id]);
      expect(await store.listAttempts({ deliveryId: c!.id, limit: 10 })).toEqual([]);
    });
  });
}
