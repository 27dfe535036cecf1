/** Control API: deliveries, their attempts, raw bodies, replay, relay retry and delete (issue 6). */
import type { FastifyInstance } from 'fastify';
import type { RelayHistoryOptions, StoredDelivery } from '../store/store.js';
import type { RelayRecordView } from './console-options.js';
import { ConsoleApiError, badRequest, notFound, notImplemented, success } from './api-envelope.js';
import type { ConsoleContext } from './console-context.js';
import { pageParams, stringParam, type Query } from './query-params.js';
import { readRelay, relayJobView, retryJobOf } from './relay-job.js';
import { jobsRetried, retryRefusal, retryTargetOf } from '../core/retry-refusal.js';
import { checkReplayTarget } from './replay-target.js';
import {
  attemptDetailViews,
  attemptTally,
  attemptView,
  bodyView,
  clip,
  deliverySummary,
  rawFileName,
  redactUrl,
  relayDetailViews,
  relayView,
  signatureView,
  MAX_DETAIL_ANSWERS,
} from './views.js';

/** Attempts shown in one delivery's detail; a sender allows at most 10 (spec 8), so this is plenty. */
const MAX_DETAIL_ATTEMPTS = 1000;
/**
 * Attempts of one detail read with what they kept (headers, bodies): the newest. A sender makes at
 * most 10 (spec 8); a hostile one making more cannot make one detail read more than this many bodies.
 */
const MAX_DETAIL_REQUESTS = 20;
/** Attempts read per list item for its tally: a sender makes at most 10 (spec 8), duplicates aside. */
const MAX_TALLIED_ATTEMPTS = 200;
const OUTCOMES = new Set(['accepted', 'duplicate', 'rejected', 'faulted', 'unavailable']);

/** An optional adapter's answer, or null when it failed: one failing view must not fail the page. */
async function optional<T>(run: (() => Promise<T>) | undefined): Promise<T | null> {
  if (!run) return null;
  try {
    return await run();
  } catch {
    return null;
  }
}

interface IdParams {
  id: string;
}

export function registerDeliveryRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { store } = ctx.options;

  const redactRelay = (r: RelayRecordView): RelayRecordView => (r.error === undefined ? r : { ...r, error: ctx.redact(r.error) });
  const showRelay = (r: RelayRecordView) => relayView(redactRelay(r));

  /** A delivery's relay tries and jobs, from one read; null when the store cannot say. */
  const relayOf = (id: string, options?: RelayHistoryOptions) => optional(() => readRelay(store, id, ctx.redact, options));

  const requireDelivery = async (id: string): Promise<StoredDelivery> => {
    const delivery = await store.getDelivery(id);
    if (!delivery) throw notFound('no stored delivery with this id');
    return delivery;
  };

  app.get('/api/deliveries', async (request) => {
    const query = request.query as Query;
    const { limit, before } = pageParams(query, 'deliveries', ctx.cursors);
    const trigger = stringParam(query, 'trigger');
    const text = stringParam(query, 'text');
    const status = stringParam(query, 'status', 20);
    if (status !== undefined && status !== '' && status !== 'accepted' && status !== 'duplicate') {
      throw badRequest('"status" must be accepted (every stored delivery) or duplicate (received more than once)');
    }
    const page = await store.listDeliveries({
      limit,
      before,
      trigger: trigger || undefined,
      text: text || undefined,
      duplicatesOnly: status === 'duplicate',
    });
    const hints = ctx.status().secretHints;
    const items = await Promise.all(
      page.items.map(async (d) => {
        // One read gives the latest attempt and the tally, so the two always agree.
        const read = await store.listAttempts({ deliveryId: d.id, limit: MAX_TALLIED_ATTEMPTS + 1 });
        const attempts = read.slice(0, MAX_TALLIED_ATTEMPTS);
        const latest = attempts[0];
        const relay = await relayOf(d.id);
        const lastRelay = relay?.tries[relay.tries.length - 1];
        return {
          ...deliverySummary({ ...d, bodyBytes: d.rawBody.length }, hints),
          latestAttempt: latest ? attemptView(latest) : null,
          attempts: attemptTally(attempts, read.length > MAX_TALLIED_ATTEMPTS),
          // The newest try (to any target), and each target's job: a fan-out's row says which target is behind.
          relay: lastRelay ? showRelay(lastRelay) : null,
          relayJobs: relay?.jobs ?? null,
        };
      }),
    );
    const nextCursor = page.nextCursor === null ? null : ctx.cursors.encode('deliveries', page.nextCursor);
    return success(items, ctx.now(), { nextCursor, hasMore: nextCursor !== null, limit });
  });

  app.get('/api/attempts', async (request) => {
    const query = request.query as Query;
    const { limit, before } = pageParams(query, 'attempts', ctx.cursors);
    const deliveryId = stringParam(query, 'deliveryId', 1024);
    const outcomeText = stringParam(query, 'outcome', 100);
    const outcomes = outcomeText ? outcomeText.split(',').map((o) => o.trim()) : undefined;
    if (outcomes?.some((o) => !OUTCOMES.has(o))) {
      throw badRequest(`"outcome" must be a comma-separated list of ${[...OUTCOMES].join(', ')}`);
    }
    const records = await store.listAttempts({
      deliveryId: deliveryId || undefined,
      outcomes: outcomes as Parameters<typeof store.listAttempts>[0]['outcomes'],
      before,
      limit: limit + 1,
    });
    const items = records.slice(0, limit);
    const hasMore = records.length > limit;
    const nextCursor = hasMore ? ctx.cursors.encode('attempts', items[items.length - 1]!.seq) : null;
    return success(items.map(attemptView), ctx.now(), { nextCursor, hasMore, limit });
  });

  /** Every attempt of an id, oldest first, the newest with what they sent; and whether there were more than shown. */
  const detailAttempts = async (id: string, deliveryHeaders: Array<[string, string]> | null) => {
    const [newestFirst, withRequests] = await Promise.all([
      store.listAttempts({ deliveryId: id, limit: MAX_DETAIL_ATTEMPTS + 1 }),
      store.listAttempts({ deliveryId: id, limit: MAX_DETAIL_REQUESTS, withRequest: true }),
    ]);
    const kept = new Map(withRequests.map((a) => [a.seq, a]));
    const oldestFirst = newestFirst.slice(0, MAX_DETAIL_ATTEMPTS).reverse().map((a) => kept.get(a.seq) ?? a);
    return { attempts: attemptDetailViews(oldestFirst, deliveryHeaders), attemptsTruncated: newestFirst.length > MAX_DETAIL_ATTEMPTS };
  };

  // An id with attempts but no stored delivery (every arrival refused or faulted): what each sent,
  // why it was refused, and the retry conformance of the sender all the same.
  app.get<{ Params: IdParams }>('/api/deliveries/:id/attempts', async (request) => {
    const id = request.params.id;
    const stored = await store.getDelivery(id);
    const { attempts, attemptsTruncated } = await detailAttempts(id, stored ? stored.headers : null);
    if (attempts.length === 0 && !stored) throw notFound('no delivery or attempt with this id');
    const conformance = ctx.options.conformance;
    const verdict = await optional(conformance && (() => conformance(id)));
    return success({ id: clip(id), stored: stored !== undefined, attempts, attemptsTruncated, conformance: verdict ?? null }, ctx.now());
  });

  app.get<{ Params: { seq: string } }>('/api/attempts/:seq/raw', async (request, reply) => {
    const seq = Number(request.params.seq);
    if (!Number.isSafeInteger(seq) || seq < 1) throw badRequest('"seq" must be an attempt seq');
    const [found] = await store.listAttempts({ before: seq + 1, limit: 1, withRequest: true });
    const body = found?.seq === seq ? found.request?.body : null;
    if (!body) throw notFound('no kept body for this attempt');
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename="${rawFileName(`${found!.deliveryId ?? 'attempt'}-${seq}`)}"`)
      .header('cache-control', 'no-store')
      .send(Buffer.from(body));
  });

  app.get<{ Params: IdParams }>('/api/deliveries/:id', async (request) => {
    const d = await requireDelivery(request.params.id);
    const status = ctx.status();
    const { attempts, attemptsTruncated } = await detailAttempts(d.id, d.headers);
    const { conformance } = ctx.options;
    // The page shows the newest MAX_DETAIL_ANSWERS answers at most: no more are read.
    const relay = await relayOf(d.id, { withAnswers: true, answersOfNewest: MAX_DETAIL_ANSWERS });
    const jobs = relay?.jobs ?? null;
    const verdict = await optional(conformance && (() => conformance(d.id)));
    // Computed on read, never at intake; ajv loads with the module on the first detail shown.
    const drift = await optional(async () => (await import('../runtime/trigger-drift.js')).driftOfBody(d.rawBody));
    return success(
      {
        delivery: deliverySummary({ ...d, bodyBytes: d.rawBody.length }, status.secretHints),
        // A known field missing or of another type than its trigger's schema says: a warning, the delivery was accepted.
        drift,
        headers: d.headers.map(([name, value]) => [name, value]),
        body: bodyView(d.rawBody),
        signature: signatureView(d, status),
        attempts,
        attemptsTruncated,
        // The newest tries' answers only (relayDetailViews): replays are unlimited, each answer up to 4 KiB of body.
        relay: relay ? relayDetailViews(relay.tries.map(redactRelay)) : null,
        // The jobs the relay tries belong to, one per target: a dead one is what Retry requeues.
        relayJobs: jobs,
        // The first job, kept for clients written before a delivery had one job per target (deprecated: read relayJobs).
        relayJob: jobs?.[0] ?? null,
        conformance: verdict ?? null,
      },
      ctx.now(),
    );
  });

  app.get<{ Params: IdParams }>('/api/deliveries/:id/raw', async (request, reply) => {
    const d = await requireDelivery(request.params.id);
    return reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename="${rawFileName(d.id)}"`)
      .header('cache-control', 'no-store')
      .send(d.rawBody);
  });

  app.post<{ Params: IdParams }>('/api/deliveries/:id/replay', async (request) => {
    const replay = ctx.options.replay;
    if (!replay) throw notImplemented('replay is not available in this process');
    const body = request.body;
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
      throw badRequest('the body must be a JSON object: {} or {"to": "<url>"}');
    }
    const to = (body as { to?: unknown } | undefined)?.to;
    // The unredacted target: compared, never shown.
    const target = checkReplayTarget(to, ctx.options.status().forwardTo ?? null);
    if (!target.ok) throw badRequest(target.message);
    const d = await requireDelivery(request.params.id);
    let result;
    try {
      result = await replay(d.id, target.target);
    } catch {
      throw new ConsoleApiError(502, 'REPLAY_FAILED', 'the replay could not be attempted');
    }
    return success(
      {
        ok: result.ok === true,
        status: typeof result.status === 'number' ? result.status : null,
        ...(result.error === undefined ? {} : { error: clip(ctx.redact(String(result.error))) }),
        // Where it went: its route, when no URL was given, is not the forward target.
        target: redactUrl(result.target ?? (target.target === null ? ctx.status().forwardTo ?? null : target.target)),
      },
      ctx.now(),
    );
  });

  // `hookrelay events retry` from the page: a delivery's dead relay jobs (only the one for `target`,
  // when the body names one) go back in the queue, due now; the running relay picks them up at its
  // next poll. Any other job is refused (a done one would reach the app twice).
  app.post<{ Params: IdParams }>('/api/deliveries/:id/retry', async (request) => {
    const body = request.body;
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badRequest('the body must be a JSON object: {}, {"job": <n>} or {"target": "<url>"}');
    const asked = (body as { target?: unknown } | undefined)?.target;
    const askedJob = (body as { job?: unknown } | undefined)?.job;
    if (asked !== undefined && (typeof asked !== 'string' || asked === '' || asked.length > 2048)) throw badRequest('"target" must be one of the delivery\'s relay targets, as its relayJobs list them');
    if (askedJob !== undefined && (typeof askedJob !== 'number' || !Number.isInteger(askedJob) || askedJob < 1)) throw badRequest('"job" must be the number of one of the delivery\'s relayJobs (1, 2, …)');
    if (asked !== undefined && askedJob !== undefined) throw badRequest('give "job" or "target", not both');
    const d = await requireDelivery(request.params.id);
    const before = (await store.relayHistory(d.id)).jobs;
    let target: string | undefined;
    if (askedJob !== undefined) {
      const chosen = retryJobOf(before, askedJob as number);
      if (!chosen.ok) throw badRequest(`"job": ${chosen.message}`);
      target = chosen.target;
    } else if (asked !== undefined && before.length > 0) {
      const chosen = retryTargetOf(before, asked);
      if (!chosen.ok) throw badRequest(`"target": ${clip(ctx.redact(chosen.message))}`);
      target = chosen.target;
    }
    if (await store.requeueRelay(d.id, ctx.now(), target)) {
      const requeued = jobsRetried(before, target).map((job) => relayJobView(job, before.indexOf(job), ctx.redact).target);
      return success({ id: clip(d.id), requeued: true, requeuedTargets: requeued }, ctx.now());
    }
    const { jobs } = await store.relayHistory(d.id);
    throw new ConsoleApiError(409, 'CONFLICT', clip(ctx.redact(`this delivery ${retryRefusal(jobs, 'Replay', target)}`), 4096));
  });

  app.delete<{ Params: IdParams }>('/api/deliveries/:id', async (request) => {
    const remove = ctx.options.remove;
    if (!remove) throw notImplemented('deleting deliveries is not available: the store offers no delete');
    if (!(await remove(request.params.id))) throw notFound('no stored delivery with this id');
    ctx.feed.publish('deleted', { id: clip(request.params.id) });
    return success({ id: request.params.id, deleted: true }, ctx.now());
  });
}
