/**
 * The only way the page builds DOM: elements by name, text through text nodes. Nothing here (or
 * anywhere in web/src) parses a string as HTML; test/console/web-source.test.ts enforces it.
 */
import { splitVisible, visibleString } from './visible.js';

export type Child = Node | string | number | null | undefined | false;

/** Attributes the page may set. Never event handlers, `style`, `href` or `src` from data. */
const ATTRIBUTES = new Set([
  'id', 'title', 'type', 'placeholder', 'value', 'name', 'for', 'role', 'colspan', 'spellcheck',
  'autocomplete', 'readonly', 'rows', 'tabindex', 'open', 'disabled', 'hidden', 'datetime',
  'aria-label', 'aria-live', 'aria-pressed', 'aria-selected', 'aria-current', 'aria-invalid',
  'aria-describedby', 'aria-hidden', 'data-key', 'data-testid', 'data-state', 'maxlength', 'size',
]);

export interface Props {
  class?: string;
  attrs?: Record<string, string | number | boolean | null | undefined>;
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props?.class) node.className = props.class;
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (!ATTRIBUTES.has(name)) throw new Error(`attribute not allowed: ${name}`);
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, listener] of Object.entries(props?.on ?? {})) node.addEventListener(type, listener as EventListener);
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Removes every child. */
export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

export function replaceChildren(node: Node, ...children: Child[]): void {
  clear(node);
  append(node, ...children);
}

/**
 * Untrusted text as a span: plain runs as text nodes, invisible and dangerous characters as
 * visible escapes (`\u202E`, `\u001B`) marked with class `esc`. The full text is the tooltip.
 */
export function vtext(text: string, options: { multiline?: boolean; max?: number; class?: string } = {}): HTMLSpanElement {
  const span = el('span', { class: options.class ?? 'vt' });
  const shown = options.max !== undefined && text.length > options.max ? text.slice(0, options.max) : text;
  for (const segment of splitVisible(shown, options.multiline ?? false)) {
    append(span, segment.escaped ? el('span', { class: 'esc', attrs: { title: 'invisible or control character' } }, segment.text) : segment.text);
  }
  if (shown.length < text.length) {
    append(span, el('span', { class: 'more' }, `… (${text.length - shown.length} more characters)`));
    span.title = visibleString(text.slice(0, 2000));
  }
  return span;
}

export function button(label: string, onClick: (event: MouseEvent) => void, options: { class?: string; title?: string; testid?: string } = {}): HTMLButtonElement {
  return el('button', {
    class: options.class ?? 'btn',
    attrs: { type: 'button', title: options.title, 'data-testid': options.testid },
    on: { click: onClick },
  }, label);
}

/** A label/value pair for definition lists. */
export function field(label: string, value: Child | Child[]): HTMLElement[] {
  return [el('dt', null, label), el('dd', null, ...(Array.isArray(value) ? value : [value]))];
}
