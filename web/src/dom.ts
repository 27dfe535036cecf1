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
  'aria-describedby', 'aria-hidden', 'aria-orientation', 'aria-valuenow', 'aria-valuemin', 'aria-valuemax',
  'data-key', 'data-testid', 'data-state', 'data-job', 'maxlength', 'size', 'max',
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

const nodesOf = (children: Child[]): Node[] =>
  children
    .filter((child): child is Node | string | number => child !== null && child !== undefined && child !== false)
    .map((child) => (typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child));

export function append(parent: ParentNode, ...children: Child[]): void {
  parent.append(...nodesOf(children));
}

/** Removes every child. */
export function clear(node: ParentNode): void {
  node.replaceChildren();
}

/**
 * One DOM operation, never "remove each child, then append": Chrome lays the page out when the
 * focused element is removed, and a list emptied at that moment sends the page back to the top.
 */
export function replaceChildren(node: ParentNode, ...children: Child[]): void {
  node.replaceChildren(...nodesOf(children));
}

/** Where a long value may wrap before it has to break anywhere: after `.`, `/`, `,`, `;`, `=`, `&`, `?`. */
const SOFT_BREAK = /(?<=[./,;=&?])/;

/**
 * Untrusted text as a span: plain runs as text nodes, invisible and dangerous characters as
 * visible escapes (`\u202E`, `\u001B`) marked with class `esc`. The full text is the tooltip.
 * `softBreaks`: a `<wbr>` after each SOFT_BREAK character (a header value wraps there first).
 */
export function vtext(text: string, options: { multiline?: boolean; max?: number; class?: string; softBreaks?: boolean } = {}): HTMLSpanElement {
  const span = el('span', { class: options.class ?? 'vt' });
  const shown = options.max !== undefined && text.length > options.max ? text.slice(0, options.max) : text;
  for (const segment of splitVisible(shown, options.multiline ?? false)) {
    if (segment.escaped) append(span, el('span', { class: 'esc', attrs: { title: 'invisible or control character' } }, segment.text));
    else if (options.softBreaks) segment.text.split(SOFT_BREAK).forEach((part, i) => append(span, i > 0 ? el('wbr') : null, part));
    else append(span, segment.text);
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
