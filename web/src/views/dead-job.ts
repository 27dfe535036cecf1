/**
 * A relay job the relay gave up on: said in the detail's relay section, with Retry (the job goes
 * back in the queue, as `hookrelay events retry` puts it) and Replay (sent again, marked as a
 * replay; the job stays dead). Issue 36, item 10.
 */
import { apiSend } from '../api.js';
import { describeError } from '../app-state.js';
import { button, el, replaceChildren, vtext } from '../dom.js';
import type { RelayJobView, Status } from '../types.js';
import { replayInto } from './detail-actions.js';

export function deadJobNotice(job: RelayJobView, deliveryId: string, status: Status): HTMLElement {
  const result = el('span', { class: 'action-result', attrs: { 'data-testid': 'relay-action-result', 'aria-live': 'polite' } });
  const retry = async (event: MouseEvent) => {
    const btn = event.currentTarget as HTMLButtonElement;
    btn.disabled = true;
    replaceChildren(result, 'Queuing…');
    try {
      await apiSend('POST', `/api/deliveries/${encodeURIComponent(deliveryId)}/retry`, {});
      // The relay's next try comes through the feed and redraws this section.
      const next = status.forwardTo === null ? ' it waits for a listen that forwards to its target' : ' the relay tries it again at its next poll';
      replaceChildren(result, el('span', { class: 'chip chip-accepted' }, 'queued again'), next);
    } catch (err) {
      btn.disabled = false;
      replaceChildren(result, el('span', { class: 'error' }, vtext(describeError(err))));
    }
  };
  const tries = `${job.tries} ${job.tries === 1 ? 'try' : 'tries'}`;
  return el(
    'div',
    { class: 'notice dead-job', attrs: { 'data-testid': 'relay-dead', role: 'status' } },
    el('p', null, el('span', { class: 'chip chip-rejected' }, 'dead'), ` The relay gave up after ${tries}: this delivery is not handed on unless you retry it.`),
    el(
      'div',
      { class: 'actions-inline' },
      button('Retry', (e) => void retry(e), { class: 'btn btn-primary', testid: 'relay-retry', title: 'Put the job back in the queue (hookrelay events retry)' }),
      status.features.replay
        ? button('Replay', () => void replayInto(result, deliveryId, ''), { testid: 'relay-replay', title: 'Send it again now, marked as a replay; the job stays dead' })
        : null,
      result,
    ),
  );
}
