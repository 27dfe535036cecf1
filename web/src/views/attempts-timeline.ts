/**
 * Every arrival on a timeline: when, the gap since the previous answer, what was answered and why
 * (with `hookrelay verify`'s hints beside the code), and what it sent: its headers, and the body of
 * a refused or faulted one. Every byte of it is hostile: text nodes only (dom.ts).
 */
import { apiBlob } from '../api.js';
import { toast } from '../app-state.js';
import { button, el, vtext } from '../dom.js';
import { formatDateTime, formatDuration, formatSkew } from '../format.js';
import type { AttemptView } from '../types.js';
import { bodySection } from './body-section.js';

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

/** The hints on a rejection, beside its code. */
function attemptHints(a: AttemptView): HTMLElement | null {
  if (!Array.isArray(a.hints) || a.hints.length === 0) return null;
  return el('ul', { class: 'hints', attrs: { 'data-testid': 'attempt-hints' } }, ...a.hints.map((hint) => el('li', null, el('span', { class: 'hint-label' }, 'hint: '), vtext(String(hint), { max: 1000 }))));
}

/** The body this arrival sent (a refused or faulted one), folded; too large to inline: a download. */
function attemptBody(a: AttemptView): HTMLElement | null {
  if (!a.body) return null;
  const download = button('Download this body', () => {
    void apiBlob(`/api/attempts/${a.seq}/raw`).then(
      (blob) => {
        const link = document.createElement('a');
        link.href = URL.createObjectURL(blob);
        link.download = `attempt-${a.seq}.body`;
        link.click();
        setTimeout(() => URL.revokeObjectURL(link.href), 1000);
      },
      () => toast('The body could not be downloaded', 'error'),
    );
  }, { class: 'btn btn-small', testid: 'attempt-body-download' });
  return el(
    'details',
    { class: 'attempt-body', attrs: { open: a.outcome === 'rejected' } },
    el('summary', null, `Body of this attempt (${a.body.bytes} bytes)`),
    bodySection(a.body, { title: 'Body sent', testid: 'attempt-', tooLarge: el('p', { class: 'muted' }, 'Too large to show here: ', download) }),
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
      attemptHints(a),
      a.signatureTimestamp !== null
        ? el('div', { class: 'muted' }, `signature t=${a.signatureTimestamp}: ${formatSkew(a.receivedAt / 1000 - a.signatureTimestamp)}`)
        : el('div', { class: 'muted' }, 'no parsable signature timestamp'),
      attemptHeaders(a),
      attemptBody(a),
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
