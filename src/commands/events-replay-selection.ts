/**
 * What a bulk `events replay` selects: stored deliveries by arrival time, trigger glob, relay
 * status and conditions on the body (as `events wait --where` reads them), oldest first. Read
 * once, when the job is planned: the plan keeps the ids, so resuming never selects again.
 */
import { describeFilter, matchesFilter, parseWhere, type WhereCondition } from '../core/delivery-filter.js';
import { parseMoment } from '../config/check-values.js';
import type { ReplayItem } from '../relay/replay-job-journal.js';
import type { DeliveryStore } from '../store/store.js';

export const REPLAY_STATUSES = ['all', 'handed-on', 'failed', 'dead'] as const;
export type ReplayStatus = (typeof REPLAY_STATUSES)[number];

export interface SelectionFlags {
  since?: string;
  until?: string;
  trigger?: string;
  status?: string;
  where?: string[];
  all?: boolean;
}

export interface Selection {
  since: number | null;
  until: number | null;
  trigger?: string;
  status: ReplayStatus;
  where: WhereCondition[];
}

/** Whether any selecting flag was given (a bulk replay needs one, or `--all`). */
export const selects = (flags: SelectionFlags): boolean =>
  flags.all === true || [flags.since, flags.until, flags.trigger, flags.status, flags.where].some((v) => v !== undefined);

export function parseSelection(flags: SelectionFlags, nowMs: number): { ok: true; value: Selection } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const moment = (flag: string, text: string | undefined): number | null => {
    if (text === undefined) return null;
    const parsed = parseMoment(text, nowMs);
    if (parsed.ok) return parsed.value;
    problems.push(`${flag}: ${parsed.message}`);
    return null;
  };
  const since = moment('--since', flags.since);
  const until = moment('--until', flags.until);
  if (since !== null && until !== null && since >= until) problems.push('--since must be before --until');
  const status = (flags.status ?? 'all') as ReplayStatus;
  if (!REPLAY_STATUSES.includes(status)) problems.push(`--status: must be one of ${REPLAY_STATUSES.join(', ')}, got ${JSON.stringify(flags.status)}`);
  const where: WhereCondition[] = [];
  for (const text of flags.where ?? []) {
    const parsed = parseWhere(text);
    if (parsed.ok) where.push(...parsed.value);
    else problems.push(parsed.message);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { since, until, trigger: flags.trigger, status, where } };
}

export function describeSelection(selection: Selection): string {
  const parts: string[] = [];
  if (selection.since !== null) parts.push(`since ${new Date(selection.since).toISOString()}`);
  if (selection.until !== null) parts.push(`until ${new Date(selection.until).toISOString()}`);
  if (selection.trigger !== undefined || selection.where.length > 0) parts.push(describeFilter({ trigger: selection.trigger, where: selection.where }));
  if (selection.status !== 'all') parts.push(`status ${selection.status}`);
  return parts.length === 0 ? 'every stored delivery' : parts.join(', ');
}

const PAGE = 500;
/** Seq order is commit order; an arrival time may trail its seq by a commit's latency, never by this. */
const ARRIVAL_SLACK_MS = 5 * 60_000;

/** The deliveries the selection holds, oldest first. */
export async function selectDeliveries(store: Pick<DeliveryStore, 'listDeliveries' | 'relayHistory'>, selection: Selection): Promise<ReplayItem[]> {
  const picked: ReplayItem[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await store.listDeliveries({ limit: PAGE, before });
    for (const d of page.items) {
      if (selection.since !== null && d.receivedAt < selection.since) continue;
      if (selection.until !== null && d.receivedAt >= selection.until) continue;
      if (!matchesFilter({ trigger: selection.trigger, where: selection.where }, d)) continue;
      if (selection.status !== 'all' && !(await hasStatus(store, d.id, selection.status))) continue;
      picked.push({ seq: d.seq, id: d.id });
    }
    const oldest = page.items.at(-1);
    if (page.nextCursor === null || oldest === undefined) break;
    if (selection.since !== null && page.items.every((d) => d.receivedAt < selection.since! - ARRIVAL_SLACK_MS)) break;
    before = page.nextCursor;
  }
  return picked.reverse();
}

/**
 * A delivery's relay status (`--status`): `dead`, any of its jobs (one per target) given up; `failed`,
 * any try that the target did not take; `handed-on`, any try it took (tries of every target and replays).
 */
async function hasStatus(store: Pick<DeliveryStore, 'relayHistory'>, id: string, status: Exclude<ReplayStatus, 'all'>): Promise<boolean> {
  const { jobs, attempts } = await store.relayHistory(id);
  const took = (s: number | null) => s !== null && s >= 200 && s < 300;
  if (status === 'dead') return jobs.some((job) => job.state === 'dead');
  if (status === 'failed') return attempts.some((a) => !took(a.status));
  return attempts.some((a) => took(a.status));
}
