/**
 * A delivery's relay jobs in the detail's relay section, one row per target (`--also`, routes of
 * several targets): its state, tries, when it is next due and what its target last answered; a dead
 * one with Retry (that target's job goes back in the queue, as `hookrelay events retry --target`
 * puts it). While any is dead, a notice above says so, with Replay (sent again, marked as a replay;
 * the jobs stay dead). Issue 36, item 10. Every string is hostile text: shown through vtext.
 */
import { apiSend } from '../api.js';
import { describeError } from '../app-state.js';
import { button, el, replaceChildren, vtext } from '../dom.js';
import { lastAnswerOf } from '../rows.js';
import type { RelayJobView, Status } from '../types.js';
import { shorten, visibleString } from '../visible.js';
import { replayInto } from './detail-actions.js';
import { moment } from './when.js';

const triesText = (n: number) => `${n} ${n === 1 ? 'try' : 'tries'}`;

const STATE_CHIP: Record<RelayJobView['state'], string> = { done: 'chip-accepted', pending: 'chip', held: 'chip-warn', dead: 'chip-rejected' };
const STATE_WORD: Record<RelayJobView['state'], string> = { done: 'handed on', pending: 'queued', held: 'held', dead: 'dead' };

/** The notice said while any job is dead: what the relay gave up on, and Replay. Kept across redraws while it stays dead. */
export function deadJobNotice(jobs: RelayJobView[], deliveryId: string, status: Status): HTMLElement {
  const dead = jobs.filter((job) => job.state === 'dead');
  const result = el('span', { class: 'action-result', attrs: { 'data-testid': 'relay-action-result', 'aria-live': 'polite' } });
  const said =
    jobs.length === 1
      ? ` The relay gave up after ${triesText(dead[0]?.tries ?? 0)}: this delivery is not handed on unless you retry it.`
      : ` The relay gave up on ${dead.length} of its ${jobs.length} targets: they are not handed this delivery unless you retry them (Retry on each below).`;
  return el(
    'div',
    { class: 'notice dead-job', attrs: { 'data-testid': 'relay-dead', role: 'status' } },
    el('p', null, el('span', { class: 'chip chip-rejected' }, 'dead'), said),
    status.features.replay
      ? el(
          'div',
          { class: 'actions-inline' },
          button('Replay', () => void replayInto(result, deliveryId, ''), { testid: 'relay-replay', title: 'Send it again now, marked as a replay; the jobs stay dead' }),
          result,
        )
      : null,
  );
}

/** One row per job. `onRetried`: a job was queued again (the detail reads the jobs again). */
export function relayJobsTable(jobs: RelayJobView[], deliveryId: string, status: Status, onRetried: () => void): HTMLElement {
  const now = Date.now();
  const row = (job: RelayJobView) => {
    const result = el('span', { class: 'action-result', attrs: { 'data-testid': 'relay-retry-result', 'aria-live': 'polite' } });
    const retry = async (event: MouseEvent) => {
      const btn = event.currentTarget as HTMLButtonElement;
      btn.disabled = true;
      replaceChildren(result, 'Queuing…');
      try {
        // That target's job only; a job queued before targets were kept is its delivery's only one.
        // Named by its place, not its URL: two targets may show alike with their credentials hidden.
        await apiSend('POST', `/api/deliveries/${encodeURIComponent(deliveryId)}/retry`, job.job !== undefined ? { job: job.job } : job.target === null ? {} : { target: job.target });
        const next = status.forwardTo === null ? ' it waits for a listen that hands on to its target' : ' the relay tries it again at its next poll';
        replaceChildren(result, el('span', { class: 'chip chip-accepted' }, 'queued again'), next);
        onRetried();
      } catch (err) {
        btn.disabled = false;
        replaceChildren(result, el('span', { class: 'error' }, vtext(describeError(err), { max: 500 })));
      }
    };
    const last = job.tries === 0 ? '—' : el('span', null, `${lastAnswerOf(job) ?? 'no answer'}`, job.lastError ? el('span', null, ' — ', vtext(job.lastError, { max: 300 })) : null);
    // Two lines per job: its target across the table (a URL is never broken: cut with an ellipsis if
    // it must be, whole in the title), then its state, tries, last answer, next try and Retry.
    return el(
      'tbody',
      { attrs: { 'data-testid': 'relay-job', 'data-state': job.state } },
      el(
        'tr',
        { class: 'job-target' },
        el(
          'td',
          { attrs: { colspan: 5 } },
          job.target === null
            ? el('span', { class: 'muted' }, '(queued before targets were kept)')
            : el('div', { class: 'url', attrs: { title: shorten(visibleString(job.target), 2000) } }, vtext(job.target, { max: 200 })),
        ),
      ),
      el(
        'tr',
        null,
        el('td', null, el('span', { class: `chip ${STATE_CHIP[job.state]}` }, STATE_WORD[job.state])),
        el('td', { class: 'nowrap' }, triesText(job.tries)),
        el('td', null, last),
        el('td', { class: 'nowrap' }, job.nextAt !== null ? moment(job.nextAt, now) : '—'),
        el(
          'td',
          null,
          job.state === 'dead'
            ? button('Retry', (e) => void retry(e), { class: 'btn btn-primary btn-small', testid: 'relay-retry', title: 'Put this target\'s job back in the queue (hookrelay events retry --target)' })
            : null,
          result,
        ),
      ),
    );
  };
  return el(
    'table',
    { class: 'kv relay-jobs', attrs: { 'data-testid': 'relay-jobs' } },
    el(
      'thead',
      null,
      el(
        'tr',
        null,
        el('th', { class: 'job-state' }, 'Target · state'),
        el('th', { class: 'job-tries' }, 'Tries'),
        el('th', null, 'Last answer'),
        el('th', { class: 'job-next' }, 'Next try'),
        el('th', { class: 'job-action' }, ''),
      ),
    ),
    ...jobs.map(row),
  );
}
