/**
 * The bridge line in the header (issue 15): on a laptop (`hookrelay connect`) the connection's
 * state, the server's host, how far behind it is and how often it reconnected; on the public side
 * (`listen --bridge-port`) its subscribers, the most behind first. Subscriber names are chosen by
 * whoever holds a token: they are shown as text, escaped where invisible, and clipped.
 */
import { apiGet } from '../api.js';
import { append, el, replaceChildren, vtext } from '../dom.js';
import { formatAge } from '../metrics-text.js';
import type { BridgeSubscriber, BridgeView } from '../types.js';
import { visibleString } from '../visible.js';
import type { LagReader } from './backlog-view.js';

/** How often the line is read again without a notice asking for it. */
export const BRIDGE_REFRESH_MS = 5_000;
/** Subscribers named on the public side's line; the others are counted. */
const NAMED = 3;
/** Characters of a name shown; the whole name (escaped) is its tooltip. */
const NAME_MAX = 40;
const STATES = new Set(['connecting', 'connected', 'resuming', 'live', 'lost', 'refused', 'stopped']);

export interface BridgeLine {
  element: HTMLElement;
  /** Reads `/api/bridge` again (calls while one read is under way fold into one more). */
  refresh(): void;
}

/**
 * Notices that concern the bridge: the public side's start with `bridge:`; the laptop's are the
 * client's changes of state (`connecting to`, `connected to`, `resuming`, `live`, `connection lost`,
 * `could not connect`, `the bridge at … refused`).
 */
export function mentionsBridge(message: string): boolean {
  return /^bridge[: ]|^(connecting|connected) to |^resuming |^live$|^connection lost|^could not connect|^the bridge at /.test(message);
}

/** With `lag` (the console's `/metrics`), each subscriber behind also says how old its oldest unacknowledged delivery is. */
export function createBridgeLine(lag?: LagReader): BridgeLine {
  const element = el('div', { class: 'bridge-line', attrs: { 'data-testid': 'bridge', 'data-state': 'connecting', role: 'status' } }, 'bridge: …');
  let reading = false;
  let again = false;
  let last: BridgeView | null = null;
  const secondsOf = (name: string): number | undefined => lag?.current()?.subscriberSeconds.get(name);
  lag?.onChange(() => {
    if (last) render(element, last, secondsOf);
  });

  const read = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      const { data } = await apiGet<BridgeView>('/api/bridge');
      last = data;
      render(element, data, secondsOf);
    } catch {
      last = null;
      element.setAttribute('data-state', 'unknown');
      replaceChildren(element, 'bridge: state unavailable');
    } finally {
      reading = false;
      if (again) {
        again = false;
        void read();
      }
    }
  };

  const timer = setInterval(() => {
    if (!element.isConnected) return clearInterval(timer);
    if (document.visibilityState !== 'hidden') void read();
  }, BRIDGE_REFRESH_MS);
  void read();
  return { element, refresh: () => void read() };
}

function render(element: HTMLElement, view: BridgeView, secondsOf: (name: string) => number | undefined): void {
  if (view.side === 'laptop') {
    const state = STATES.has(view.state) ? view.state : 'unknown';
    element.setAttribute('data-state', state);
    replaceChildren(
      element,
      'bridge: ',
      el('strong', { attrs: { 'data-testid': 'bridge-state' } }, state),
      ' · ',
      name(view.name),
      ' @ ',
      el('code', null, vtext(view.host)),
      ' · ',
      behind(view.lag),
      ' · ',
      plural(view.reconnects, 'reconnect'),
    );
    element.title = `received seq ${view.receivedSeq}, acknowledged seq ${view.ackedSeq}`;
    return;
  }
  const { subscribers, total } = view;
  element.setAttribute('data-state', 'public');
  element.removeAttribute('title');
  if (total === 0) {
    replaceChildren(element, 'bridge: no subscriber yet');
    return;
  }
  replaceChildren(element, `bridge: ${plural(total, 'subscriber')} — `);
  subscribers.slice(0, NAMED).forEach((s, i) => append(element, i > 0 ? '; ' : null, subscriber(s, secondsOf(s.subscriber))));
  if (total > NAMED) append(element, `; ${total - NAMED} more`);
}

function subscriber(s: BridgeSubscriber, lagSeconds: number | undefined): HTMLElement {
  return el(
    'span',
    { class: 'bridge-sub', attrs: { 'data-testid': 'bridge-subscriber', 'data-state': s.connected ? 'live' : 'offline' } },
    name(s.subscriber),
    ` ${s.connected ? 'live' : 'offline'}, `,
    behind(s.lag),
    s.lag > 0 && lagSeconds !== undefined ? el('span', { class: 'warn', attrs: { 'data-testid': 'bridge-lag-seconds' } }, ` (oldest ${formatAge(lagSeconds)})`) : null,
  );
}

function name(text: string): HTMLElement {
  const chars = Array.from(text);
  const clipped = chars.length > NAME_MAX;
  const span = vtext(clipped ? `${chars.slice(0, NAME_MAX).join('')}…` : text, { class: 'vt bridge-name' });
  if (clipped) span.title = visibleString(chars.slice(0, 500).join(''));
  return span;
}

function behind(lag: number): HTMLElement {
  return el('span', { class: lag > 0 ? 'warn' : '' }, `${lag} behind`);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
