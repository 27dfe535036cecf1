/**
 * Control API: bulk replay jobs (issue 39). The page replays many deliveries at once: those it
 * selected (`ids`), or everything its list's filter matches (`filter`, the list's own query), as
 * one journaled job of the data folder (relay/bulk-replays.ts), the same job `hookrelay events
 * replay --resume` goes on with. Targets are checked as a single replay's are.
 */
import type { FastifyInstance } from 'fastify';
import { badRequest, ConsoleApiError, notFound, notImplemented, success } from './api-envelope.js';
import type { ConsoleContext } from './console-context.js';
import { checkReplayTarget } from './replay-target.js';

/** Ids one request may name; past it, select by filter. */
export const MAX_SELECTED_IDS = 1_000;
/** Deliveries one filter may select; past it, narrow the filter (or use `hookrelay events replay`). */
export const MAX_FILTERED = 100_000;
/** Deliveries read per page while a filter is resolved (with their bodies: kept small). */
const PAGE = 100;
const JOB_ID = /^rj_[0-9a-z]{12}$/;

interface JobParams {
  id: string;
}

export function registerReplayJobRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const { store } = ctx.options;
  const jobs = () => {
    const bulk = ctx.options.bulkReplays;
    if (!bulk) throw notImplemented('replay is not available in this process');
    return bulk;
  };
  const view = ({ id, createdAt, selection, total, done, ok, failed, state, error }: ReturnType<ReturnType<typeof jobs>['list']>[number]) => ({
    id,
    createdAt: new Date(createdAt).toISOString(),
    selection,
    total,
    done,
    ok,
    failed,
    state,
    ...(error === undefined ? {} : { error: ctx.redact(error).slice(0, 500) }),
  });

  app.get('/api/replay-jobs', async () => success(jobs().list().map(view), ctx.now()));

  app.post('/api/replay-jobs', async (request, reply) => {
    const bulk = jobs();
    const body = request.body as Record<string, unknown> | undefined;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('the body must be a JSON object: {"ids": [...]} or {"filter": {"trigger": …, "text": …, "status": …}}, with "to" optional');
    }
    const unknown = Object.keys(body).filter((k) => k !== 'ids' && k !== 'filter' && k !== 'to');
    if (unknown.length > 0) throw badRequest(`unknown field ${JSON.stringify(unknown[0]!.slice(0, 40))}: give "ids" or "filter", and "to"`);
    if ((body.ids === undefined) === (body.filter === undefined)) throw badRequest('give exactly one of "ids" (the deliveries chosen) and "filter" (everything the list matches)');
    const target = checkReplayTarget(body.to, ctx.status().forwardTo ?? null);
    if (!target.ok) throw badRequest(target.message);

    let items: Array<{ seq: number; id: string }>;
    let selection: string;
    if (body.ids !== undefined) {
      const ids = body.ids;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_SELECTED_IDS || !ids.every((id) => typeof id === 'string' && id.length > 0 && id.length <= 1024)) {
        throw badRequest(`"ids" must be a list of 1 to ${MAX_SELECTED_IDS} delivery ids`);
      }
      const found = new Map<string, number>();
      for (const id of new Set(ids as string[])) {
        const d = await store.getDelivery(id);
        if (d) found.set(d.id, d.seq);
      }
      if (found.size === 0) throw notFound('none of these ids is a stored delivery');
      items = [...found].map(([id, seq]) => ({ seq, id })).sort((a, b) => a.seq - b.seq);
      selection = `${items.length} chosen in the console`;
    } else {
      const filter = body.filter as Record<string, unknown> | null;
      if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw badRequest('"filter" must be an object: {"trigger": …, "text": …, "status": "accepted" | "duplicate"}');
      const text = (name: string): string | undefined => {
        const value = filter[name];
        if (value === undefined || value === '') return undefined;
        if (typeof value !== 'string' || value.length > 256) throw badRequest(`"filter.${name}" must be text of at most 256 characters`);
        return value;
      };
      const trigger = text('trigger');
      const search = text('text');
      const status = text('status');
      if (status !== undefined && status !== 'accepted' && status !== 'duplicate') throw badRequest('"filter.status" must be accepted or duplicate');
      items = [];
      let before: number | undefined;
      for (;;) {
        const page = await store.listDeliveries({ limit: PAGE, before, trigger, text: search, duplicatesOnly: status === 'duplicate' });
        for (const d of page.items) items.push({ seq: d.seq, id: d.id });
        if (items.length > MAX_FILTERED) throw badRequest(`the filter matches more than ${MAX_FILTERED.toLocaleString('en-US')} deliveries: narrow it, or use hookrelay events replay --since …`);
        if (page.nextCursor === null) break;
        before = page.nextCursor;
      }
      if (items.length === 0) throw notFound('no stored delivery matches the filter');
      items.reverse();
      selection = ['the console\'s list', trigger && `trigger ${JSON.stringify(trigger)}`, search && `text ${JSON.stringify(search)}`, status].filter(Boolean).join(', ');
    }
    const job = bulk.start({ items, selection, to: target.target });
    return reply.code(202).send(success(view(job), ctx.now()));
  });

  const byId = (request: { params: JobParams }): string => {
    if (!JOB_ID.test(request.params.id)) throw notFound('no replay job with this id');
    return request.params.id;
  };

  app.post<{ Params: JobParams }>('/api/replay-jobs/:id/stop', async (request) => {
    const id = byId(request);
    if (!jobs().stop(id)) throw notFound('no running replay job with this id');
    return success({ id, stopping: true }, ctx.now());
  });

  app.post<{ Params: JobParams }>('/api/replay-jobs/:id/resume', async (request) => {
    const id = byId(request);
    const resumed = jobs().resume(id);
    if (!resumed.ok) throw new ConsoleApiError(resumed.status, resumed.status === 404 ? 'NOT_FOUND' : 'CONFLICT', ctx.redact(resumed.message).slice(0, 300));
    return success({ id, resumed: true }, ctx.now());
  });
}
