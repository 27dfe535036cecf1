/** One delivery: actions, headers, body, then the verdicts: signature, attempts timeline, relay, conformance. */
import { apiGet } from '../api.js';
import { describeError, type AppState } from '../app-state.js';
import { button, el, field, replaceChildren, vtext, type Child } from '../dom.js';
import { formatTime } from '../format.js';
import type { Row } from '../rows.js';
import type { AttemptsDetail, AttemptView, DeliveryDetail } from '../types.js';
import { shorten, visibleString } from '../visible.js';
import { detailActions } from './detail-actions.js';
import { bodySection } from './body-section.js';
import { deadJobNotice, relayJobsTable } from './relay-jobs.js';
import { driftSection } from './drift-section.js';
import { headerTable } from './header-table.js';
import { dateTime } from './when.js';
import { attemptsTimeline } from './attempts-timeline.js';
import { conformanceSection, relaySection, signatureSection } from './verdict-sections.js';

export interface DetailView {
  element: HTMLElement;
  show(row: Row | undefined, key: string): Promise<void>;
  /** Refetches the open delivery soon (a feed message concerned it). */
  refreshSoon(): void;
  close(): void;
}

export function createDetailView(state: AppState, onDeleted: (id: string) => void): DetailView {
  const element = el('section', { class: 'detail-pane', attrs: { 'data-testid': 'detail', 'aria-live': 'polite' } });
  let current: { key: string; row: Row | undefined } | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  const placeholder = () =>
    replaceChildren(element, el('p', { class: 'muted detail-empty' }, 'Select a delivery to see its headers, body, signature verdict and attempts.'));
  placeholder();

  const load = async () => {
    if (!current) return;
    const mine = ++generation;
    const { key, row } = current;
    try {
      if (key.startsWith('d:')) {
        const path = `/api/deliveries/${encodeURIComponent(key.slice(2))}`;
        // The row knows whether the delivery was stored: ask for the right thing first, never for a
        // delivery that answers 404. An id the list does not hold (a link) is asked for its
        // attempts, which say whether it was stored.
        if (row?.stored !== true) {
          const arrivals = await apiGet<AttemptsDetail>(`${path}/attempts`);
          // Never stored: every arrival with what it sent, and the sender's conformance all the same.
          if (!arrivals.data.stored) {
            if (mine === generation) renderNotStored(key.slice(2), arrivals.data.attempts, arrivals.data);
            return;
          }
        }
        const detail = await apiGet<DeliveryDetail>(path);
        if (mine === generation) render(detail.data);
      } else if (row?.lone) {
        renderNotStored(null, [row.lone]);
      } else {
        replaceChildren(element, el('p', { class: 'muted' }, 'This arrival is no longer in the list.'));
      }
    } catch (err) {
      if (mine === generation) replaceChildren(element, el('p', { class: 'error' }, `Could not load the delivery: ${describeError(err)}`));
    }
  };

  // The id stays on one line (cut with an ellipsis, whole in the title and under "Delivery id").
  const header = (title: HTMLElement, trigger: string | null, subtitle: Child, tip: string | null = null) =>
    el(
      'header',
      { class: 'detail-head' },
      el('h2', { attrs: { 'data-testid': 'detail-id', title: tip } }, title),
      el('p', { class: 'muted' }, trigger === null ? '(no trigger header)' : vtext(trigger, { max: 200 }), ' · ', subtitle),
      button('Close', () => (location.hash = '#/'), { class: 'btn btn-small close', title: 'Close the detail' }),
    );

  // Headers and body never change once stored: a live refresh (a new attempt, a relay try) keeps
  // these parts as they are, with the user's replay target, action result and body tab; and the
  // dead job's notice while the job stays dead, with what its Replay or Retry answered.
  let kept: { id: string; actions: HTMLElement; headers: HTMLElement; body: HTMLElement; dead: HTMLElement | null } | null = null;

  const render = (d: DeliveryDetail) => {
    const s = d.delivery;
    if (kept?.id !== s.id) {
      kept = { id: s.id, actions: detailActions(state, d, onDeleted), headers: headersSection(d.headers), body: bodySection(d.body), dead: null };
    }
    const jobs = d.relayJobs ?? [];
    kept.dead = jobs.some((job) => job.state === 'dead') ? (kept.dead ?? deadJobNotice(jobs, s.id, state.status)) : null;
    // One row per target; a Retry reads the jobs again at once (no feed message says a job was queued).
    const jobsTable = jobs.length > 0 ? relayJobsTable(jobs, s.id, state.status, () => detailView.refreshSoon()) : null;
    replaceChildren(
      element,
      header(vtext(s.id, { max: 200 }), s.trigger, el('span', null, 'received ', dateTime(s.receivedAt)), shorten(visibleString(s.id), 300)),
      kept.actions,
      el(
        'dl',
        { class: 'facts' },
        ...field('Delivery id', vtext(s.id)),
        ...field('API version', [vtext(s.apiVersion), s.apiVersionKnown ? '' : el('span', { class: 'chip chip-warn' }, 'unknown to this build')]),
        ...field('Body', `${s.bodyBytes} bytes`),
        ...field('Duplicates', s.duplicateCount === 0 ? 'none' : `received ${s.duplicateCount} more time${s.duplicateCount === 1 ? '' : 's'}, not handed on again`),
      ),
      // What was sent comes first (as in ngrok's inspector and webhook.site); the verdicts about it follow.
      kept.headers,
      kept.body,
      driftSection(d.drift),
      signatureSection(d),
      attemptsTimeline(d.attempts, d.attemptsTruncated),
      relaySection(d.relay, state.status, s.id, kept.dead, jobsTable),
      conformanceSection(d.conformance, state.status),
    );
  };

  /** An id with no stored delivery (or a lone arrival with no id): each arrival, what it sent and why it was refused; the verdict on the sender's retries. */
  const renderNotStored = (id: string | null, attempts: AttemptView[], detail: AttemptsDetail | null = null) => {
    const last = attempts[attempts.length - 1];
    replaceChildren(
      element,
      header(
        id === null ? el('span', { class: 'muted' }, '(no delivery id)') : vtext(id, { max: 200 }),
        last?.trigger ?? null,
        last ? el('span', null, 'last arrival ', el('span', { class: 'nowrap' }, formatTime(last.receivedAt))) : '',
        id === null ? null : shorten(visibleString(id), 300),
      ),
      el(
        'p',
        { class: 'notice' },
        'Not stored: every arrival of this delivery was refused or answered by a fault rule. Each attempt below shows what it sent and why it was refused.',
      ),
      attemptsTimeline(attempts, detail?.attemptsTruncated ?? false),
      detail ? conformanceSection(detail.conformance, state.status) : null,
    );
  };

  const detailView: DetailView = {
    element,
    async show(row, key) {
      current = { key, row };
      kept = null;
      element.setAttribute('data-state', 'open');
      replaceChildren(element, el('p', { class: 'muted' }, 'Loading…'));
      await load();
    },
    refreshSoon() {
      clearTimeout(timer);
      timer = setTimeout(() => void load(), 250);
    },
    close() {
      current = null;
      kept = null;
      element.removeAttribute('data-state');
      generation += 1;
      placeholder();
    },
  };
  return detailView;
}

function headersSection(headers: Array<[string, string]>): HTMLElement {
  return el('section', { class: 'block' }, el('h3', null, `Headers (${headers.length})`), headerTable(headers, 'headers'));
}
