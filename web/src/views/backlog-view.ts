/**
 * Lag and backlog in the header (issue 39, item 3): per relay target what is still owed and how old
 * the oldest is, with the jobs retrying and dead; the bridge line adds each subscriber's lag in
 * seconds. Read from the console's own `/metrics` (the same numbers a Prometheus scrape and
 * `hookrelay status` see). Targets and subscriber names are shown as text only, escaped where
 * invisible, and clipped.
 */
import { currentToken } from '../api.js';
import { append, el, replaceChildren, vtext } from '../dom.js';
import { formatAge, lagFromMetrics, type LagSnapshot, type TargetLag } from '../metrics-text.js';
import { visibleString } from '../visible.js';

/** How often `/metrics` is read again without a delivery or relay try asking for it. */
export const LAG_REFRESH_MS = 5_000;
/**
 * A read asked for by the feed waits at least this long after the last one: the backlog is read from
 * the store (on SQLite, on the receiver's thread), and a busy feed must not turn each tab into a poller.
 */
const SOON_MS = 5_000;
/** Targets named on the line; the others are counted (the tooltip lists them). */
const NAMED = 2;
const TARGET_MAX = 60;
/** An owed delivery older than this is shown as a warning. */
const OLD_SECONDS = 60;

export interface LagReader {
  /** The last reading, or null before the first (and where `/metrics` is not served). */
  current(): LagSnapshot | null;
  /** Called after each reading. */
  onChange(listener: (snapshot: LagSnapshot) => void): void;
  /** Reads again soon (calls close together fold into one read). */
  refreshSoon(): void;
}

/**
 * Reads `/metrics` every LAG_REFRESH_MS while the page is visible (when `served`: the status says the
 * listener has it); stops for good when it is not served after all (404) or refused.
 */
export function createLagReader(served: boolean): LagReader {
  let snapshot: LagSnapshot | null = null;
  const listeners: Array<(snapshot: LagSnapshot) => void> = [];
  let reading = false;
  let stopped = !served;
  let soon: ReturnType<typeof setTimeout> | null = null;
  let lastRead = 0;

  const read = async (): Promise<void> => {
    if (reading || stopped) return;
    reading = true;
    lastRead = Date.now();
    try {
      const token = currentToken();
      const response = await fetch('/metrics', { headers: token ? { 'x-hookrelay-token': token } : {}, cache: 'no-store', credentials: 'same-origin' });
      if (response.status === 404 || response.status === 401 || response.status === 403) {
        stopped = true;
        return;
      }
      if (!response.ok) return;
      snapshot = lagFromMetrics(await response.text());
      for (const listener of listeners) listener(snapshot);
    } catch {
      // The console is unreachable: the feed says so; the last reading stays until the next.
    } finally {
      reading = false;
    }
  };

  if (!stopped) {
    const timer = setInterval(() => {
      if (stopped) return clearInterval(timer);
      if (document.visibilityState !== 'hidden') void read();
    }, LAG_REFRESH_MS);
    void read();
  }
  return {
    current: () => snapshot,
    onChange: (listener) => void listeners.push(listener),
    refreshSoon() {
      if (soon !== null || stopped) return;
      soon = setTimeout(() => {
        soon = null;
        void read();
      }, Math.max(0, lastRead + SOON_MS - Date.now()));
    },
  };
}

/** The relay's backlog line in the header: hidden until `/metrics` serves the series. */
export function createBacklogLine(reader: LagReader): HTMLElement {
  const element = el('div', { class: 'backlog-line', attrs: { 'data-testid': 'backlog', role: 'status', hidden: true } });
  reader.onChange((snapshot) => render(element, snapshot));
  return element;
}

function render(element: HTMLElement, snapshot: LagSnapshot): void {
  if (!snapshot.served) {
    element.hidden = true;
    return;
  }
  element.hidden = false;
  const { targets } = snapshot;
  const owed = targets.reduce((n, t) => n + t.pending + t.held, 0);
  const dead = targets.reduce((n, t) => n + t.dead, 0);
  const troubled = targets.some(trouble);
  element.setAttribute('data-state', troubled ? 'behind' : 'ok');
  if (targets.length === 0) {
    element.removeAttribute('title');
    replaceChildren(element, 'relay: nothing owed');
    return;
  }
  replaceChildren(element, 'relay: ', el('strong', { attrs: { 'data-testid': 'backlog-owed' } }, `${owed} owed`), dead > 0 ? `, ${dead} dead` : null, ' — ');
  targets.slice(0, NAMED).forEach((t, i) => append(element, i > 0 ? '; ' : null, target(t)));
  if (targets.length > NAMED) append(element, `; ${targets.length - NAMED} more`);
  element.title = visibleString(targets.map((t) => `${t.target}: ${counts(t)}`).join('\n').slice(0, 4000));
}

const trouble = (t: TargetLag) => t.retrying > 0 || t.dead > 0 || (t.pending + t.held > 0 && t.oldestSeconds > OLD_SECONDS);

function counts(t: TargetLag): string {
  const owed = t.pending + t.held;
  return [
    `${owed} owed`,
    owed > 0 ? `oldest ${formatAge(t.oldestSeconds)}` : '',
    t.held > 0 ? `${t.held} held` : '',
    t.retrying > 0 ? `${t.retrying} retrying` : '',
    t.dead > 0 ? `${t.dead} dead` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

function target(t: TargetLag): HTMLElement {
  const chars = Array.from(t.target);
  const clipped = chars.length > TARGET_MAX;
  return el(
    'span',
    { class: `backlog-target${trouble(t) ? ' warn' : ''}`, attrs: { 'data-testid': 'backlog-target' } },
    vtext(clipped ? `${chars.slice(0, TARGET_MAX).join('')}…` : t.target, { class: 'vt backlog-name' }),
    ` ${counts(t)}`,
  );
}
