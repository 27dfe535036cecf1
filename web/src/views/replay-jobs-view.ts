/**
 * Bulk replay jobs (issue 39): a strip above the list while one runs or has just ended, with its
 * progress and a Stop (or Resume) button. Filled from `/api/replay-jobs` at start and from the
 * feed's `replayJob` messages. Every text from the server is shown as text, clipped.
 */
import { apiGet, apiSend } from '../api.js';
import { describeError, toast } from '../app-state.js';
import { button, el, replaceChildren, vtext } from '../dom.js';
import type { ReplayJob } from '../types.js';

/** Jobs shown: the running ones and the latest ended ones, at most this many. */
const SHOWN = 3;

export interface ReplayJobsView {
  element: HTMLElement;
  /** A job's new state (from the feed, or the answer that started it). */
  apply(job: ReplayJob): void;
  /** Reads the jobs of the data folder. */
  load(): Promise<void>;
}

export function createReplayJobsView(): ReplayJobsView {
  const element = el('div', { class: 'replay-jobs', attrs: { 'data-testid': 'replay-jobs', 'aria-live': 'polite' } });
  const jobs = new Map<string, ReplayJob>();
  const dismissed = new Set<string>();

  const count = (n: number) => n.toLocaleString('en-US');
  const line = (job: ReplayJob): HTMLElement => {
    const percent = job.total === 0 ? 100 : Math.floor((job.done / job.total) * 100);
    const act =
      job.state === 'running'
        ? button('Stop', () => void post(job.id, 'stop'), { class: 'btn btn-small', testid: 'replay-job-stop' })
        : job.state === 'stopped'
          ? button('Resume', () => void post(job.id, 'resume'), { class: 'btn btn-small', testid: 'replay-job-resume' })
          : button('Dismiss', () => (dismissed.add(job.id), draw()), { class: 'btn btn-small' });
    return el(
      'div',
      { class: `replay-job replay-job-${job.state}`, attrs: { 'data-testid': 'replay-job', 'data-job': job.id } },
      el('progress', { attrs: { max: Math.max(1, job.total), value: job.done } }),
      el('span', { class: 'replay-job-text' }, `Replay ${job.id.slice(0, 15)}: ${count(job.done)}/${count(job.total)} (${percent}%)`, job.failed > 0 ? ` · ${count(job.failed)} failed` : '', ` · ${job.state}`),
      job.selection ? el('span', { class: 'muted replay-job-selection' }, ' — ', vtext(job.selection, { max: 120 })) : null,
      job.error ? el('span', { class: 'replay-job-error' }, ' — ', vtext(job.error, { max: 200 })) : null,
      act,
    );
  };

  const draw = () => {
    const shown = [...jobs.values()].filter((j) => j.state === 'running' || !dismissed.has(j.id)).slice(0, SHOWN);
    replaceChildren(element, ...shown.map(line));
    element.hidden = shown.length === 0;
  };

  const post = async (id: string, action: 'stop' | 'resume') => {
    try {
      await apiSend('POST', `/api/replay-jobs/${encodeURIComponent(id)}/${action}`, {});
    } catch (err) {
      toast(`could not ${action} the replay: ${describeError(err)}`, 'error');
    }
  };

  draw();
  return {
    element,
    apply(job) {
      const known = jobs.get(job.id);
      jobs.delete(job.id);
      // Newest first: a job that changes moves to the top.
      const merged = { ...known, ...job };
      const rest = [...jobs.entries()];
      jobs.clear();
      jobs.set(job.id, merged);
      for (const [id, j] of rest) jobs.set(id, j);
      draw();
    },
    async load() {
      try {
        const { data } = await apiGet<ReplayJob[]>('/api/replay-jobs');
        // Only jobs still running or stopped half way are news at a page load.
        for (const job of data.filter((j) => j.state !== 'finished').reverse()) this.apply(job);
      } catch {
        /* an older server or no replay: the strip stays empty */
      }
    },
  };
}
