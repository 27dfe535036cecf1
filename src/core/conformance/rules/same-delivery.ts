/**
 * `same-delivery`: one delivery id on every attempt, equal to the body `id`, the same trigger and
 * the identical body bytes (spec 6.1: x-service-delivery is "identical on every attempt").
 */
import type { Finding, RuleVerdict, TimelineEntry } from '../types.js';
import { attemptList, fromFindings } from './context.js';

// hookrelay's receiver rejects a header that disagrees with the body before storing (envelope check).
const HEADER_MISMATCH = /delivery_id_mismatch|event_type_mismatch/i;

const short = (hash: string): string => (typeof hash === 'string' ? hash.slice(0, 12) : '?');

/** Fails each attempt whose id, trigger or body differs from attempt 1's, or that was refused for a header/body mismatch. */
export function judgeSameDelivery(timeline: readonly TimelineEntry[]): RuleVerdict {
  const first = timeline[0];
  const findings: Finding[] = timeline.map((a) => {
    const problems: string[] = [];
    if (a.deliveryId === null) problems.push('no x-service-delivery');
    else if (first && a.deliveryId !== first.deliveryId) problems.push(`delivery id ${a.deliveryId} instead of ${first.deliveryId ?? '(none)'}`);
    if (first && a.trigger !== first.trigger) problems.push(`trigger ${a.trigger ?? '(none)'} instead of ${first.trigger ?? '(none)'}`);
    if (first && a.bodySha256 !== first.bodySha256) problems.push(`body sha256 ${short(a.bodySha256)}… instead of ${short(first.bodySha256)}…`);
    if (typeof a.reason === 'string' && HEADER_MISMATCH.test(a.reason)) problems.push(`refused by hookrelay: ${a.reason} (header does not match the body)`);
    return {
      attempt: a.position,
      ok: problems.length === 0,
      expected: first ? `id ${first.deliveryId ?? '(none)'}, body ${short(first.bodySha256)}…` : 'one delivery',
      observed: problems.length === 0 ? 'same id and body' : problems.join('; '),
    };
  });
  const ids = [...new Set(timeline.map((a) => a.deliveryId ?? '(none)'))];
  const bodies = new Set(timeline.map((a) => a.bodySha256)).size;
  const bad = findings.filter((f) => !f.ok);
  return fromFindings('same-delivery', findings, {
    expected: 'one delivery id, equal to the body id, and identical body bytes on every attempt',
    observed: `${ids.length} delivery id${ids.length === 1 ? '' : 's'} (${ids.join(', ')}), ${bodies} distinct bod${bodies === 1 ? 'y' : 'ies'}`,
    pass: `every attempt carried id ${first?.deliveryId ?? '(none)'} and the same body bytes`,
    fail: `${attemptList(bad)}: ${bad.map((f) => f.observed).join(' | ')}`,
  });
}
