/** Signature verdict, relay history and retry conformance of one delivery. */
import { refusedAttempts } from '../attempt-groups.js';
import { el, field, vtext } from '../dom.js';
import { formatBytes, formatDuration, formatSkew } from '../format.js';
import { jsonTree } from '../json-tree.js';
import { shorten, visibleString } from '../visible.js';
import { shellQuote } from '../shell.js';
import type { DeliveryDetail, RelayAnswerView, RelayView, Status } from '../types.js';
import { bodySection } from './body-section.js';
import { headerTable } from './header-table.js';
import { dateTime, moment } from './when.js';

export function signatureSection(d: DeliveryDetail): HTMLElement {
  const s = d.signature;
  const verdict =
    s.state === 'valid'
      ? el('span', { class: 'chip chip-accepted' }, 'valid')
      : el('span', { class: 'chip chip-warn' }, 'not verified (--skip-verify)');
  const secret =
    s.secretHint === null
      ? '—'
      : el('span', null, el('code', null, vtext(s.secretHint)), s.secretIndex === 0 ? ' (primary secret)' : ` (secret #${(s.secretIndex ?? 0) + 1}: a rotation secret)`);
  const within = s.skewSeconds !== null && Math.abs(s.skewSeconds) <= s.toleranceSeconds;
  return el(
    'section',
    { class: 'block', attrs: { 'data-testid': 'signature' } },
    el('h3', null, 'Signature'),
    el(
      'dl',
      { class: 'facts' },
      ...field('Verdict', verdict),
      ...field('Matched', secret),
      ...field('Timestamp', s.timestamp === null ? '—' : [`t=${s.timestamp} (`, dateTime(s.timestamp * 1000), ')']),
      ...field(
        'Skew',
        s.skewSeconds === null
          ? '—'
          : el('span', null, formatSkew(s.skewSeconds), ` · tolerance ±${s.toleranceSeconds} s`, within ? '' : el('span', { class: 'chip chip-warn' }, 'outside tolerance')),
      ),
    ),
    refusedNote(d),
  );
}

/** Points to the refused attempts, only when there are some (redirect hops that led on to an accept are not). */
function refusedNote(d: DeliveryDetail): HTMLElement | null {
  const refused = refusedAttempts(d.attempts);
  if (refused === 0) return null;
  const text = refused === 1 ? '1 attempt was refused' : `${refused} attempts were refused`;
  return el('p', { class: 'muted', attrs: { 'data-testid': 'refused-note' } }, `${text}: see the attempts for the reason of each.`);
}

/** The answer's header lines as received, folded; a note when some were left out. */
function answerHeaders(a: RelayAnswerView): HTMLElement {
  const left = a.headerLines - a.headers.length;
  return el(
    'details',
    { class: 'answer-headers' },
    el('summary', null, `Headers of the answer (${a.headerLines})`),
    headerTable(a.headers, 'relay-answer-headers'),
    left > 0 ? el('p', { class: 'muted' }, `${left} more header line${left === 1 ? '' : 's'} not kept (the first ${a.headers.length} are).`) : null,
  );
}

/** How much of the answer's body is kept: the first 4 KiB of what came. */
function answerSize(a: RelayAnswerView): string {
  const seen = a.complete ? formatBytes(a.bodyBytes) : `at least ${formatBytes(a.bodyBytes)} (hookrelay stopped reading, or the answer was cut)`;
  if (a.bodyBytes === 0 && a.complete) return 'empty';
  return a.body.bytes < a.bodyBytes || !a.complete ? `${seen}, the first ${formatBytes(a.body.bytes)} kept` : seen;
}

/** What the target answered to one try: headers and the kept start of the body, both hostile text. */
function relayAnswer(r: RelayView, open: boolean, deliveryId: string | undefined): HTMLElement | null {
  if (r.answerLeftOut === true) {
    // Kept, but past the detail's bound (the newest tries' answers only): the CLI reads every one.
    const command = `hookrelay events show ${deliveryId === undefined ? '<id>' : shellQuote(deliveryId)} --json`;
    return el('p', { class: 'muted', attrs: { 'data-testid': 'relay-answer-left-out' } }, 'Answer not shown here (the page shows the newest answers): ', el('code', null, vtext(command, { max: 2000 })));
  }
  if (r.answer === undefined) return null;
  if (r.answer === null) {
    // No status: no answer came, and the error says why. A status without an answer: an older record.
    return r.status === null ? null : el('p', { class: 'muted', attrs: { 'data-testid': 'relay-answer-not-kept' } }, 'Answer not kept (recorded before hookrelay kept answers).');
  }
  const a = r.answer;
  return el(
    'div',
    { class: 'relay-answer', attrs: { 'data-testid': 'relay-answer' } },
    answerHeaders(a),
    el(
      'details',
      { class: 'answer-body', attrs: { open } },
      el('summary', null, `Body of the answer (${answerSize(a)})`),
      a.body.bytes > 0 ? bodySection(a.body, { title: 'Answer body', testid: 'relay-' }) : el('p', { class: 'muted' }, 'No body.'),
    ),
  );
}

/**
 * `deliveryId`: the delivery's id, for the command that reads an answer the detail left out;
 * `dead`: what is said (with Replay) when the relay gave up on a target; `jobs`: its jobs, one row
 * per target with Retry on a dead one (relay-jobs.ts).
 */
export function relaySection(relay: RelayView[] | null, status: Status, deliveryId?: string, dead: HTMLElement | null = null, jobs: HTMLElement | null = null): HTMLElement {
  const title = el('h3', null, 'Relay');
  if (relay === null) {
    const why = status.forwardTo === null ? 'No --forward-to target is configured: deliveries are stored, not handed on.' : 'No relay history is available for this delivery.';
    return el('section', { class: 'block' }, title, dead, jobs, el('p', { class: 'muted' }, why));
  }
  if (relay.length === 0) return el('section', { class: 'block' }, title, dead, jobs, el('p', { class: 'muted' }, 'Not handed on yet.'));
  const now = Date.now();
  return el(
    'section',
    { class: 'block', attrs: { 'data-testid': 'relay' } },
    title,
    dead,
    jobs,
    el(
      'table',
      { class: 'kv relay-tries' },
      el('thead', null, el('tr', null, el('th', null, 'When'), el('th', null, 'Result'), el('th', null, 'Latency'), el('th', null, 'Next retry'))),
      el(
        'tbody',
        null,
        ...relay.flatMap((r, i) => {
          // The newest try, when it failed, is the one being debugged: its answer's body opens.
          const answer = relayAnswer(r, i === relay.length - 1 && !r.ok, deliveryId);
          return [
            el(
              'tr',
              { attrs: { 'data-testid': 'relay-try' } },
              el('td', null, moment(r.at, now), r.replay ? el('span', { class: 'chip' }, 'replay') : null),
              el(
                'td',
                null,
                el('span', { class: `chip ${r.ok ? 'chip-accepted' : 'chip-rejected'}` }, r.ok ? 'delivered' : 'failed'),
                ` ${r.status ?? 'no answer'}`,
                r.error ? el('span', null, ' — ', vtext(r.error, { max: 300 })) : null,
                // A URL is never broken: cut with an ellipsis if it must be, whole in the title.
                r.target ? el('div', { class: 'muted url', attrs: { title: shorten(visibleString(r.target), 2000) } }, vtext(r.target, { max: 200 })) : null,
              ),
              el('td', { class: 'nowrap' }, formatDuration(r.latencyMs)),
              el('td', null, r.nextRetryAt ? moment(r.nextRetryAt, now) : '—'),
            ),
            answer ? el('tr', { class: 'relay-answer-row' }, el('td', { attrs: { colspan: 4 } }, answer)) : null,
          ].filter((row): row is HTMLTableRowElement => row !== null);
        }),
      ),
    ),
  );
}

interface RuleVerdictLike {
  rule?: unknown;
  status?: unknown;
  message?: unknown;
}

export function conformanceSection(verdict: unknown, status: Status): HTMLElement {
  const title = el('h3', null, 'Retry conformance');
  if (verdict === null || verdict === undefined) {
    const why = status.features.conformance ? 'No verdict for this delivery yet.' : 'Conformance checking is not available in this process (see `hookrelay check`).';
    return el('section', { class: 'block' }, title, el('p', { class: 'muted' }, why));
  }
  const v = verdict as { status?: unknown; rules?: unknown; state?: unknown; unseenAttempts?: unknown };
  const unseen = typeof v.unseenAttempts === 'number' && Number.isSafeInteger(v.unseenAttempts) && v.unseenAttempts > 0 ? v.unseenAttempts : 0;
  if ((v.status === 'pass' || v.status === 'fail') && Array.isArray(v.rules)) {
    return el(
      'section',
      { class: 'block', attrs: { 'data-testid': 'conformance' } },
      title,
      el(
        'p',
        null,
        el('span', { class: `chip ${v.status === 'pass' ? 'chip-accepted' : 'chip-rejected'}` }, v.status === 'pass' ? 'conforms' : 'does not conform'),
        typeof v.state === 'string' ? ` · delivery ${v.state}` : '',
      ),
      unseen > 0
        ? el('p', { class: 'muted', attrs: { 'data-testid': 'unseen-attempts' } }, `${unseen === 1 ? 'Attempt 1 was' : `Attempts 1–${unseen} were`} not seen here (the receiver was down, or they went elsewhere): judged from attempt ${unseen + 1}.`)
        : null,
      el(
        'ul',
        { class: 'rules' },
        ...(v.rules as RuleVerdictLike[]).map((r) =>
          el(
            'li',
            null,
            el('span', { class: `chip chip-${r.status === 'pass' ? 'accepted' : r.status === 'fail' ? 'rejected' : 'muted'}` }, vtext(String(r.status ?? '?'))),
            ' ',
            el('strong', null, vtext(String(r.rule ?? ''))),
            r.message ? el('span', null, ': ', vtext(String(r.message), { max: 500 })) : null,
          ),
        ),
      ),
    );
  }
  return el('section', { class: 'block' }, title, jsonTree(verdict));
}
