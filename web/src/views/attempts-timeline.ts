/** Every arrival on a timeline: when, the gap since the previous answer, what was answered and why. */
import { el, vtext } from '../dom.js';
import { formatDateTime, formatDuration, formatSkew } from '../format.js';
import type { AttemptView } from '../types.js';

function answer(a: AttemptView): string {
  const status = a.status === null ? 'no answer (connection ended without a response)' : `answered ${a.status}`;
  return a.retryAfter ? `${status}, Retry-After ${a.retryAfter}` : status;
}

/** This arrival's own headers, folded, when the API has them (issue 13, item 13). */
function attemptHeaders(a: AttemptView): HTMLElement | null {
  if (!Array.isArray(a.headers) || a.headers.length === 0) return null;
  return el(
    'details',
    { class: 'attempt-headers' },
    el('summary', null, `Headers of this attempt (${a.headers.length})`),
    el(
      'table',
      { class: 'kv', attrs: { 'data-testid': 'attempt-headers' } },
      el('tbody', null, ...a.headers.map(([name, value]) => el('tr', null, el('th', null, vtext(String(name))), el('td', null, vtext(String(value), { max: 8192 }))))),
    ),
  );
}

export function attemptsTimeline(attempts: AttemptView[], truncated: boolean): HTMLElement {
  const first = attempts[0]?.receivedAt ?? 0;
  const last = attempts[attempts.length - 1]?.finishedAt ?? first;
  const span = Math.max(1, last - first);
  const bar = el('div', { class: 'timeline-bar', attrs: { 'aria-hidden': 'true' } });
  for (const a of attempts) {
    const mark = el('span', { class: `mark mark-${a.outcome}`, attrs: { title: `${formatDateTime(a.receivedAt)} ${a.outcome}` } });
    // CSSOM, not a style attribute: allowed by the page's CSP.
    mark.style.left = `${((a.receivedAt - first) / span) * 100}%`;
    bar.appendChild(mark);
  }
  const items = attempts.map((a, i) => {
    const previous = i > 0 ? attempts[i - 1] : undefined;
    const gap = previous ? a.receivedAt - previous.finishedAt : null;
    return el(
      'li',
      { class: `attempt attempt-${a.outcome}`, attrs: { 'data-testid': 'attempt' } },
      el(
        'div',
        { class: 'attempt-head' },
        el('strong', null, `#${i + 1}`),
        a.attemptHeader !== null ? el('span', { class: 'muted' }, ` (attempt header ${a.attemptHeader})`) : el('span', { class: 'muted' }, ' (no attempt header)'),
        ' · ',
        formatDateTime(a.receivedAt),
        gap !== null ? el('span', { class: 'gap' }, ` · ${formatDuration(gap)} after the previous answer`) : null,
      ),
      el(
        'div',
        null,
        el('span', { class: `chip chip-${a.outcome}` }, a.outcome),
        ' ',
        answer(a),
        a.reason ? el('span', null, ' — ', vtext(a.reason, { max: 500 })) : null,
        a.finishedAt > a.receivedAt ? el('span', { class: 'muted' }, ` · took ${formatDuration(a.finishedAt - a.receivedAt)}`) : null,
      ),
      a.signatureTimestamp !== null
        ? el('div', { class: 'muted' }, `signature t=${a.signatureTimestamp}: ${formatSkew(a.receivedAt / 1000 - a.signatureTimestamp)}`)
        : el('div', { class: 'muted' }, 'no parsable signature timestamp'),
      attemptHeaders(a),
    );
  });
  return el(
    'section',
    { class: 'block' },
    el('h3', null, `Attempts (${attempts.length}${truncated ? '+' : ''})`),
    attempts.length > 1 ? bar : null,
    el('ol', { class: 'timeline', attrs: { 'data-testid': 'attempts' } }, ...items),
  );
}
