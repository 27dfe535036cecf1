/** The read tools on stored deliveries: `list_deliveries` (filters of `events list`, paged) and `show_delivery` (what `events show` shows). */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { splitSenderAttempts } from '../core/conformance/group-attempts.js';
import { MAX_ID_LENGTH } from '../core/limits.js';
import { displayUrl } from '../core/url-secrets.js';
import type { AttemptOutcome, AttemptRecord, RelayAttemptRecord, RelayJob, StoredDelivery } from '../store/store.js';
import { answer, guarded, ToolFailure } from './answer.js';
import type { McpContext } from './context.js';
import { SHOWN_BODY_BYTES } from '../core/limits.js';
import { MAX_SHOWN_BODY_BYTES, shownBody, shownHeaders, UNTRUSTED_NOTE, untrustedText } from './untrusted.js';

const STATUSES = ['accepted', 'duplicate', 'rejected', 'faulted', 'unavailable'] as const;
/** The most a page lists: enough to scan, small enough for an agent's context. */
export const MAX_PAGE = 100;
/** The most attempts `show_delivery` lists of one delivery (the newest). */
const MAX_ATTEMPTS_SHOWN = 50;
/** The most relay tries `show_delivery` lists (the newest). */
const MAX_TRIES_SHOWN = 20;

const iso = (ms: number) => new Date(ms).toISOString();

const idSchema = z.string().min(1).max(MAX_ID_LENGTH).describe('delivery id (x-service-delivery)');

/** A stored delivery in a list: no headers, no body. */
function deliverySummary(d: StoredDelivery) {
  return {
    seq: d.seq,
    receivedAt: iso(d.receivedAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    duplicateCount: d.duplicateCount,
    signature: d.signature,
    bodyBytes: d.rawBody.length,
    untrustedContent: { id: untrustedText(d.id), trigger: untrustedText(d.trigger) },
  };
}

/** An attempt: what hookrelay recorded, and what the sender chose kept apart as untrusted. */
function attemptSummary(a: AttemptRecord) {
  return {
    seq: a.seq,
    receivedAt: iso(a.receivedAt),
    outcome: a.outcome,
    status: a.status,
    reason: a.reason,
    attemptHeader: a.attemptHeader,
    retryAfter: a.retryAfter,
    bodyBytes: a.bodyBytes,
    untrustedContent: { deliveryId: a.deliveryId === null ? null : untrustedText(a.deliveryId), trigger: a.trigger === null ? null : untrustedText(a.trigger), hints: (a.hints ?? []).map((h) => untrustedText(h)) },
  };
}

export function registerDeliveryTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'list_deliveries',
    {
      title: 'List or search stored deliveries',
      description: `Stored deliveries, newest first, as \`hookrelay events list\` lists them: filter by trigger, by status (accepted, duplicate; or rejected, faulted, unavailable for the attempts that stored nothing), or search a text in the id, trigger or body. Paged: pass the answer's nextCursor as cursor for the next page. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        trigger: z.string().min(1).max(MAX_ID_LENGTH).optional().describe('only this trigger, e.g. vendor.rating_dropped'),
        status: z.enum(STATUSES).optional().describe('accepted or duplicate: stored deliveries; rejected, faulted, unavailable: attempts that stored nothing'),
        text: z.string().min(1).max(200).optional().describe('search: a text the id, trigger or body holds (stored deliveries only)'),
        limit: z.number().int().min(1).max(MAX_PAGE).default(20).describe(`how many on this page (1-${MAX_PAGE})`),
        cursor: z.number().int().min(1).optional().describe('the nextCursor of the previous page'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      guarded(ctx.redact, async () => {
        const attemptStatus = input.status === 'rejected' || input.status === 'faulted' || input.status === 'unavailable';
        if (attemptStatus) {
          if (input.text !== undefined) throw new ToolFailure(`text searches stored deliveries; status ${input.status} lists attempts that stored nothing: leave out one of them`);
          // As `events list`: read more when a trigger filters, since attempts are filtered after reading.
          const read = await ctx.store.listAttempts({ outcomes: [input.status as AttemptOutcome], limit: input.trigger ? 1000 : input.limit, before: input.cursor });
          const items = read.filter((a) => !input.trigger || a.trigger === input.trigger).slice(0, input.limit);
          const full = read.length === (input.trigger ? 1000 : input.limit);
          const last = items.length === input.limit ? items[items.length - 1]! : full ? read[read.length - 1]! : null;
          return answer(ctx.redact, { store: ctx.storeName, kind: 'attempts', count: items.length, nextCursor: last?.seq ?? null, attempts: items.map(attemptSummary) });
        }
        const page = await ctx.store.listDeliveries({ limit: input.limit, before: input.cursor, trigger: input.trigger, duplicatesOnly: input.status === 'duplicate', text: input.text });
        return answer(ctx.redact, { store: ctx.storeName, kind: 'deliveries', count: page.items.length, nextCursor: page.nextCursor, deliveries: page.items.map(deliverySummary) });
      }),
  );

  server.registerTool(
    'show_delivery',
    {
      title: 'Show one delivery',
      description: `One delivery as \`hookrelay events show\` shows it: its headers (the signature redacted as exports redact it) and body, every attempt (with the request kept of those that stored nothing, and the receiver's hints on a rejection), its relay jobs (one per target: its number, which retry_relay's job names, state, tries, last answer) and relay tries (each with its target) with what the target answered. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        id: idSchema,
        bodyBytes: z.number().int().min(0).max(MAX_SHOWN_BODY_BYTES).default(SHOWN_BODY_BYTES).describe(`how many bytes of each body to show (default ${SHOWN_BODY_BYTES}, at most ${MAX_SHOWN_BODY_BYTES})`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      guarded(ctx.redact, async () => {
        const delivery = await ctx.store.getDelivery(input.id);
        const attempts = (await ctx.store.listAttempts({ deliveryId: input.id, limit: MAX_ATTEMPTS_SHOWN, withRequest: true })).reverse();
        if (!delivery && attempts.length === 0) throw new ToolFailure(`no delivery or attempt with id ${JSON.stringify(input.id)} in ${ctx.storeName} (list_deliveries lists them)`);
        const relay = await ctx.store.relayHistory(input.id, { withAnswers: true });
        const limit = input.bodyBytes;
        // Numbered as the conformance judge counts the sender's attempts, each redirect hop apart (as `events show --json`).
        const senderAttempts = splitSenderAttempts(attempts).flatMap((hops, i) =>
          hops.map((a, hop) => {
            const summary = attemptSummary(a);
            const request = a.request ? { headers: shownHeaders(a.request.headers), body: a.request.body === null ? null : shownBody(a.request.body, limit, { bodyBytes: a.bodyBytes, complete: true }) } : null;
            return { senderAttempt: i + 1, hop, ...summary, untrustedContent: { ...summary.untrustedContent, request } };
          }),
        );
        const tries = relay.attempts.slice(-MAX_TRIES_SHOWN).map((r) => relayTry(r, limit));
        return answer(ctx.redact, {
          store: ctx.storeName,
          delivery: delivery
            ? {
                seq: delivery.seq,
                apiVersion: untrustedText(delivery.apiVersion, 100),
                apiVersionKnown: delivery.apiVersionKnown,
                receivedAt: iso(delivery.receivedAt),
                lastAttemptAt: iso(delivery.lastAttemptAt),
                duplicateCount: delivery.duplicateCount,
                signature: delivery.signature,
                secretIndex: delivery.secretIndex,
                signatureTimestamp: delivery.signatureTimestamp,
                untrustedContent: { id: untrustedText(delivery.id), trigger: untrustedText(delivery.trigger), headers: shownHeaders(delivery.headers), body: shownBody(delivery.rawBody, limit) },
              }
            : null,
          ...(delivery ? {} : { note: 'no stored delivery with this id: only attempts that were not accepted' }),
          attempts: senderAttempts,
          ...(attempts.length === MAX_ATTEMPTS_SHOWN ? { attemptsNote: `the newest ${MAX_ATTEMPTS_SHOWN} attempts are shown` } : {}),
          relay: {
            // One job per target, in the order they were queued; none when forwarding was off.
            jobs: relay.jobs.map((job, i) => relayJob(job, i)),
            tries,
            ...(relay.attempts.length > MAX_TRIES_SHOWN ? { triesNote: `the newest ${MAX_TRIES_SHOWN} of ${relay.attempts.length} tries are shown` } : {}),
          },
        });
      }),
  );
}

/**
 * A relay job (one per target): its number, the target shown without credentials, its state, tries
 * and what its target last answered. Numbered as the console numbers them (relayJobView): what
 * retry_relay's `job` names, since two targets that differ only in a hidden secret are shown alike.
 */
function relayJob(job: RelayJob, index: number) {
  return {
    job: index + 1,
    target: job.target === null ? null : displayUrl(job.target),
    state: job.state,
    tries: job.tries,
    nextAt: job.state === 'pending' ? iso(job.nextAt) : null,
    lastResponseStatus: job.lastStatus,
    // Deprecated: the same as lastResponseStatus (docs/mcp.md); removed in 1.0.0.
    lastStatus: job.lastStatus,
    lastError: job.lastError === null ? null : untrustedText(job.lastError),
  };
}

/** A relay try: the target shown without credentials, what it answered as untrusted content. */
function relayTry(r: RelayAttemptRecord, limit: number) {
  const answer = r.answer;
  return {
    startedAt: iso(r.startedAt),
    ms: r.finishedAt - r.startedAt,
    replay: r.replay,
    try: r.try,
    status: r.status,
    error: r.error === null ? null : untrustedText(r.error),
    target: displayUrl(r.target),
    untrustedContent: answer ? { answerHeaders: shownHeaders(answer.headers), answerHeaderLines: answer.headerLines, answerBody: shownBody(answer.body, limit, answer) } : null,
  };
}
