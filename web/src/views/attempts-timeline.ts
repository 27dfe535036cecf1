/**
 * Every attempt of the sender on a timeline: when, the gap since the previous answer, what was
 * answered and why (with `hookrelay verify`'s hints beside the code), and what it sent: its
 * headers, and the body of a refused or faulted one. An attempt that followed redirect hops is one
 * entry listing its hops (issue 13, item 13). Every byte of it is hostile: text nodes only (dom.ts).
 */
import { apiBlob } from '../api.js';
import { toast } from '../app-state.js';
import { finalArrival, senderAttempts, type SenderAttempt } from '../attempt-groups.js';
import { button, el, vtext } from '../dom.js';
import { formatDateTime, formatDuration, formatSkew } from '../format.js';
import type { AttemptView } from '../types.js';
import { bodySection } from './body-section.js';
import { headerTable } from './header-table.js';
import { dateTime } from './when.js';

function answer(a: AttemptView): string {
  const status = a.status === null ? 'no answer (connection ended without a response)' : `answered ${a.status}`;
  return a.retryAfter ? `${status}, Retry-After ${a.retryAfter}` : status;
}

/** This arrival's own headers, folded, when the API has them (issue 13, item 13). */
function attemptHeaders(a: AttemptView, of = 'this attempt'): HTMLElement | null {
  if (!Array.isArray(a.headers) || a.headers.length === 0) return null;
  return el(
    'details',
    { class: 'attempt-headers' },
    el('summary', null, `Headers of ${of} (${a.headers.length})`),
    headerTable(a.headers, 'attempt-headers'),
  );
}

/** The hints on a rejection, beside its code. */
function attemptHints(a: AttemptView): HTMLElement | null {
  if (!Array.isArray(a.hints) || a.hints.length === 0) return null;
  return el('ul', { class: 'hints', attrs: { 'data-testid': 'attempt-hints' } }, ...a.hints.map((hint) => el('li', null, el('span', { class: 'hint-label' }, 'hint: '), vtext(String(hint), { max: 1000 }))));
}

/** The body this arrival sent (a refused or faulted one), folded; too large to inline: a download. */
function attemptBody(a: AttemptView | undefined, note = ''): HTMLElement | null {
  if (!a?.body) return null;
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
    el('summary', null, `Body of this attempt (${a.body.bytes} bytes${note})`),
    bodySection(a.body, { title: 'Body sent', testid: 'attempt-', tooLarge: el('p', { class: 'muted' }, 'Too large to show here: ', download) }),
  );
}

const isRedirect = (status: number | null) => status !== null && status >= 300 && status <= 399;

/**
 * The hops of an attempt that followed redirects: each arrival, when, what was answered (a redirect
 * names the hop it sent the sender to, the next arrival), and its own headers.
 */
function hopList(attempt: SenderAttempt): HTMLElement {
  const hops = attempt.arrivals;
  return el(
    'ol',
    { class: 'hops', attrs: { 'data-testid': 'attempt-hops' } },
    ...hops.map((a, i) => {
      const name = i === 0 ? 'request' : `hop ${i}`;
      const next = hops[i + 1];
      // hookrelay's hop Locations are not recorded; the next arrival is where the sender went.
      const went = isRedirect(a.status) ? (next ? ` → redirect to hop ${i + 1}` : ' → redirect not followed') : '';
      return el(
        'li',
        { class: `hop hop-${a.outcome}`, attrs: { 'data-testid': 'hop' } },
        el(
          'div',
          null,
          el('strong', null, name),
          ' · ',
          dateTime(a.receivedAt),
          ' · ',
          el('span', { class: `chip chip-${a.outcome}` }, a.outcome),
          ' ',
          answer(a),
          went,
          a.reason ? el('span', null, ' — ', vtext(a.reason, { max: 500 })) : null,
          a.finishedAt > a.receivedAt ? el('span', { class: 'muted' }, ` · took ${formatDuration(a.finishedAt - a.receivedAt)}`) : null,
        ),
        attemptHeaders(a, i === 0 ? 'this request' : 'this hop'),
      );
    }),
  );
}

function attemptItem(attempt: SenderAttempt, previous: SenderAttempt | undefined): HTMLElement {
  const first = attempt.arrivals[0]!;
  const last = finalArrival(attempt);
  const hops = attempt.arrivals.length - 1;
  const gap = previous ? first.receivedAt - finalArrival(previous).finishedAt : null;
  return el(
    'li',
    { class: `attempt attempt-${last.outcome}`, attrs: { 'data-testid': 'attempt' } },
    el(
      'div',
      { class: 'attempt-head' },
      el('strong', null, `#${attempt.number}`),
      first.attemptHeader !== null ? el('span', { class: 'muted' }, ` (attempt header ${first.attemptHeader})`) : el('span', { class: 'muted' }, ' (no attempt header)'),
      ' · ',
      dateTime(first.receivedAt),
      gap !== null ? el('span', { class: 'gap' }, ` · ${formatDuration(gap)} after the previous answer`) : null,
    ),
    el(
      'div',
      null,
      el('span', { class: `chip chip-${last.outcome}` }, last.outcome),
      ' ',
      answer(last),
      last.reason ? el('span', null, ' — ', vtext(last.reason, { max: 500 })) : null,
      last.finishedAt > first.receivedAt ? el('span', { class: 'muted' }, ` · took ${formatDuration(last.finishedAt - first.receivedAt)}`) : null,
      hops > 0 ? el('span', { class: 'chip', attrs: { 'data-testid': 'hop-count' } }, `${hops} redirect hop${hops === 1 ? '' : 's'} followed`) : null,
    ),
    attemptHints(last),
    first.signatureTimestamp !== null
      ? el('div', { class: 'muted' }, `signature t=${first.signatureTimestamp}: ${formatSkew(first.receivedAt / 1000 - first.signatureTimestamp)}`)
      : el('div', { class: 'muted' }, 'no parsable signature timestamp'),
    hops > 0 ? hopList(attempt) : attemptHeaders(first),
    // Every hop re-sends the same request: its body is shown once.
    hops > 0 ? attemptBody(attempt.arrivals.find((a) => a.body), ', sent on every hop') : attemptBody(first),
  );
}

export function attemptsTimeline(attempts: AttemptView[], truncated: boolean): HTMLElement {
  const groups = senderAttempts(attempts);
  const first = attempts[0]?.receivedAt ?? 0;
  const last = attempts[attempts.length - 1]?.finishedAt ?? first;
  const span = Math.max(1, last - first);
  const bar = el('div', { class: 'timeline-bar', attrs: { 'aria-hidden': 'true' } });
  for (const g of groups) {
    const start = g.arrivals[0]!;
    const outcome = finalArrival(g).outcome;
    const mark = el('span', { class: `mark mark-${outcome}`, attrs: { title: `${formatDateTime(start.receivedAt)} ${outcome}` } });
    // CSSOM, not a style attribute: allowed by the page's CSP.
    mark.style.left = `${((start.receivedAt - first) / span) * 100}%`;
    bar.appendChild(mark);
  }
  const items = groups.map((g, i) => attemptItem(g, groups[i - 1]));
  const arrivals = attempts.length === groups.length ? '' : `, ${attempts.length} arrivals`;
  return el(
    'section',
    { class: 'block' },
    el('h3', null, `Attempts (${groups.length}${truncated ? '+' : ''}${arrivals})`),
    groups.length > 1 ? bar : null,
    el('ol', { class: 'timeline', attrs: { 'data-testid': 'attempts' } }, ...items),
  );
}
