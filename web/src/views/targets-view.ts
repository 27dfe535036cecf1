/**
 * The relay's targets (docs/relay.md, "Pacing"): each with its pace (rate, burst, concurrency), the
 * hand-offs in flight and waiting, whether it is paused, and a Pause / Resume button. Read from
 * `/api/targets` where the status says it answers (features.targets), again every
 * TARGETS_REFRESH_MS while the page is visible. A target's URL and its `order=` are hostile text:
 * shown as text, escaped where invisible, and clipped; the numbers are checked before they are shown.
 * Rows are updated in place, so a refresh never takes a button away from under the pointer or the focus.
 */
import { ApiError, listTargets, setTargetPaused } from '../api.js';
import { describeError, toast } from '../app-state.js';
import { button, el, replaceChildren, vtext } from '../dom.js';
import type { RelayTarget } from '../types.js';
import { visibleString } from '../visible.js';

/** How often the targets are read again. */
export const TARGETS_REFRESH_MS = 3_000;
/** Characters of a target's URL shown; the whole URL (escaped) is its tooltip. */
const URL_MAX = 90;
const ORDER_MAX = 60;

export interface TargetsView {
  element: HTMLElement;
  /** Reads `/api/targets` again (calls while one read is under way fold into one more). */
  refresh(): void;
}

interface Row {
  element: HTMLElement;
  url: HTMLElement;
  state: HTMLElement;
  pace: HTMLElement;
  counts: HTMLElement;
  order: HTMLElement;
  toggle: HTMLButtonElement;
  /** The state the button acts on (the last one read). */
  paused: boolean;
  busy: boolean;
  shownUrl: string | null;
}

const whole = (n: unknown): string => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? String(Math.round(n)) : '?');

/** `50/s`; a rate set per minute (`rate=600/m` is 10/s, `rate=1/m` is not a whole number a second) as `N/min`. */
export function rateText(perSecond: number): string {
  if (Number.isInteger(perSecond)) return `${perSecond}/s`;
  const perMinute = perSecond * 60;
  if (Math.abs(perMinute - Math.round(perMinute)) < 1e-6) return `${Math.round(perMinute)}/min`;
  return `${Number(perSecond.toFixed(3))}/s`;
}

/** "rate 50/s, burst 1, concurrency 16", or "no rate, concurrency 16". */
export function paceText(t: Pick<RelayTarget, 'ratePerSecond' | 'burst' | 'concurrency'>): string {
  const rate = typeof t.ratePerSecond === 'number' && Number.isFinite(t.ratePerSecond) && t.ratePerSecond > 0 ? t.ratePerSecond : null;
  return rate === null ? `no rate, concurrency ${whole(t.concurrency)}` : `rate ${rateText(rate)}, burst ${whole(t.burst)}, concurrency ${whole(t.concurrency)}`;
}

export function createTargetsView(): TargetsView {
  const summary = el('span', { class: 'muted targets-summary', attrs: { 'data-testid': 'targets-summary' } });
  const note = el('span', { class: 'targets-note', attrs: { 'data-testid': 'targets-note', role: 'status' } });
  const list = el('ul', { class: 'targets-list' });
  const element = el(
    'section',
    { class: 'targets-pane', attrs: { 'data-testid': 'targets', 'aria-label': 'Relay targets' } },
    el('div', { class: 'targets-head' }, el('h3', null, 'Targets'), summary, note),
    list,
  );
  const rows = new Map<string, Row>();
  let reading = false;
  let again = false;
  let stopped = false;
  /** Counts pauses and resumes answered: a read started before one is stale and is read again. */
  let generation = 0;

  const row = (id: string): Row => {
    const known = rows.get(id);
    if (known) return known;
    const made: Row = {
      element: el('li', { class: 'target-row', attrs: { 'data-testid': 'target', 'data-key': id } }),
      url: el('code', { class: 'target-url', attrs: { 'data-testid': 'target-url' } }),
      state: el('span', { class: 'chip target-state', attrs: { 'data-testid': 'target-state' } }),
      pace: el('span', { class: 'target-pace', attrs: { 'data-testid': 'target-pace' } }),
      counts: el('span', { class: 'target-counts muted', attrs: { 'data-testid': 'target-counts' } }),
      order: el('span', { class: 'target-order', attrs: { 'data-testid': 'target-order' } }),
      toggle: button('Pause', () => void toggle(id), { class: 'btn btn-small target-toggle', testid: 'target-toggle' }),
      paused: false,
      busy: false,
      shownUrl: null,
    };
    made.element.append(el('span', { class: 'target-id muted' }, `#${id.slice(0, 6)}`), made.url, made.state, made.pace, made.counts, made.order, made.toggle);
    rows.set(id, made);
    return made;
  };

  const update = (t: RelayTarget): void => {
    const r = row(t.id);
    const paused = t.paused === true;
    r.paused = paused;
    r.element.setAttribute('data-state', paused ? 'paused' : 'running');
    r.element.classList.toggle('target-paused', paused);
    const url = String(t.target);
    if (r.shownUrl !== url) {
      r.shownUrl = url;
      const chars = Array.from(url);
      const clipped = chars.length > URL_MAX;
      replaceChildren(r.url, vtext(clipped ? `${chars.slice(0, URL_MAX).join('')}…` : url));
      r.url.title = visibleString(chars.slice(0, 2000).join(''));
    }
    r.state.textContent = paused ? 'PAUSED' : 'running';
    r.state.className = `chip target-state ${paused ? 'chip-warn' : 'chip-accepted'}`;
    r.pace.textContent = paceText(t);
    r.counts.textContent = `${whole(t.inFlight)} in flight, ${whole(t.waiting)} waiting`;
    const blocked = Array.isArray(t.blockedKeys) ? t.blockedKeys.length : 0;
    if (typeof t.order === 'string') {
      replaceChildren(
        r.order,
        'order ',
        vtext(t.order, { max: ORDER_MAX, class: 'vt target-order-key' }),
        t.onDead === 'block' ? ', on-dead=block' : null,
        blocked > 0 ? el('span', { class: 'warn' }, `, ${blocked}${blocked >= 20 ? '+' : ''} key${blocked === 1 ? '' : 's'} blocked`) : null,
      );
      r.order.hidden = false;
    } else {
      replaceChildren(r.order);
      r.order.hidden = true;
    }
    r.toggle.textContent = paused ? 'Resume' : 'Pause';
    r.toggle.title = paused ? 'Hand deliveries on to this target again, at its pace' : 'Stop handing deliveries on to this target; they are still received and stored, and wait';
    r.toggle.setAttribute('aria-pressed', paused ? 'true' : 'false');
    r.toggle.disabled = r.busy;
  };

  const render = (targets: RelayTarget[]): void => {
    const valid = targets.filter((t) => t !== null && typeof t === 'object' && typeof t.id === 'string' && t.id !== '');
    for (const t of valid) update(t);
    const ids = valid.map((t) => t.id);
    for (const [id] of rows) if (!ids.includes(id)) rows.delete(id);
    const current = Array.from(list.children).map((child) => child.getAttribute('data-key'));
    // Moving a row would take the focus off its button: the rows are put in order only when it changed.
    if (current.length !== ids.length || current.some((id, i) => id !== ids[i])) replaceChildren(list, ...ids.map((id) => rows.get(id)!.element));
    const paused = valid.filter((t) => t.paused === true).length;
    summary.textContent = valid.length === 0 ? 'no target' : `${valid.length} target${valid.length === 1 ? '' : 's'}${paused > 0 ? `, ${paused} paused` : ''}`;
    element.setAttribute('data-state', paused > 0 ? 'paused' : 'running');
  };

  const read = async (): Promise<void> => {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    const started = generation;
    try {
      const { data } = await listTargets();
      if (started !== generation) {
        again = true;
        return;
      }
      note.textContent = '';
      render(Array.isArray(data) ? data : []);
    } catch (err) {
      // No relay after all (501), an older server (404), or refused: the panel goes away for good.
      if (err instanceof ApiError && [401, 403, 404, 501].includes(err.status)) {
        stopped = true;
        element.hidden = true;
        return;
      }
      note.textContent = `could not read the targets: ${describeError(err).slice(0, 200)}`;
    } finally {
      reading = false;
      if (again) {
        again = false;
        void read();
      }
    }
  };

  const toggle = async (id: string): Promise<void> => {
    const r = rows.get(id);
    if (!r || r.busy) return;
    const pause = !r.paused;
    r.busy = true;
    r.toggle.disabled = true;
    try {
      const { data } = await setTargetPaused(id, pause);
      generation += 1;
      if (data && typeof data === 'object' && data.id === id) update(data);
    } catch (err) {
      toast(`could not ${pause ? 'pause' : 'resume'} target #${id.slice(0, 6)}: ${describeError(err)}`, 'error');
    } finally {
      r.busy = false;
      r.toggle.disabled = false;
      void read();
    }
  };

  const timer = setInterval(() => {
    if (stopped) return clearInterval(timer);
    if (element.isConnected && document.visibilityState !== 'hidden') void read();
  }, TARGETS_REFRESH_MS);
  void read();
  return { element, refresh: () => void read() };
}
