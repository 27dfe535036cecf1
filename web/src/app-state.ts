/** State the views share, and the small notification area. */
import { el, vtext } from './dom.js';
import { createRowStore, type Filter, type RowStore } from './rows.js';
import type { Status } from './types.js';

export interface AppState {
  status: Status;
  rows: RowStore;
  filter: Filter;
  /** Keys the server returned for the current text filter (it also searches bodies). */
  serverMatches: Set<string> | null;
  /** Cursor of the next page of older deliveries. */
  nextCursor: string | null;
  paused: boolean;
  /** Key of the row whose detail is open. */
  selected: string | null;
}

export function createState(status: Status): AppState {
  return {
    status,
    rows: createRowStore(),
    filter: { trigger: '', status: '', text: '' },
    serverMatches: null,
    nextCursor: null,
    paused: false,
    selected: null,
  };
}

let toasts: HTMLElement | null = null;

/** Shows a short message (action results, warnings from the feed); it goes away by itself. */
export function toast(message: string, level: 'info' | 'warn' | 'error' = 'info'): void {
  toasts ??= document.getElementById('toasts');
  if (!toasts) return;
  const item = el('div', { class: `toast toast-${level}`, attrs: { role: level === 'error' ? 'alert' : 'status' } }, vtext(message, { max: 500 }));
  toasts.appendChild(item);
  setTimeout(() => item.remove(), level === 'info' ? 4000 : 8000);
  while (toasts.childElementCount > 5) toasts.firstElementChild?.remove();
}

/** A message for an error from the API or the network. */
export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
