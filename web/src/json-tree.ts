/** A collapsible JSON tree from native <details> elements; every key and value is text. */
import { el, vtext, type Child } from './dom.js';

const MAX_NODES = 5000;
const OPEN_DEPTH = 3;

export function jsonTree(value: unknown): HTMLElement {
  const budget = { left: MAX_NODES };
  return el('div', { class: 'json-tree', attrs: { 'data-testid': 'json-tree' } }, node(value, null, 0, budget));
}

function label(key: string | null): Child {
  return key === null ? null : el('span', { class: 'j-key' }, vtext(key), ': ');
}

function node(value: unknown, key: string | null, depth: number, budget: { left: number }): HTMLElement {
  budget.left -= 1;
  if (value !== null && typeof value === 'object') {
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((v, i) => [String(i), v])
      : Object.entries(value as Record<string, unknown>);
    const isArray = Array.isArray(value);
    const summary = el(
      'summary',
      null,
      label(key),
      el('span', { class: 'j-punct' }, isArray ? '[' : '{'),
      el('span', { class: 'j-count' }, ` ${entries.length} ${isArray ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'} `),
      el('span', { class: 'j-punct' }, isArray ? ']' : '}'),
    );
    const details = el('details', { class: 'j-node', attrs: { open: depth < OPEN_DEPTH } }, summary);
    const children = el('div', { class: 'j-children' });
    for (const [k, v] of entries) {
      if (budget.left <= 0) {
        children.appendChild(el('div', { class: 'j-more' }, '… more (see the raw body)'));
        break;
      }
      children.appendChild(node(v, isArray ? null : k, depth + 1, budget));
    }
    details.appendChild(children);
    return details;
  }
  let shown: Child;
  let kind: string;
  if (typeof value === 'string') {
    kind = 'j-string';
    shown = el('span', null, '"', vtext(value, { max: 10_000 }), '"');
  } else if (value === null) {
    kind = 'j-null';
    shown = 'null';
  } else {
    kind = typeof value === 'number' ? 'j-number' : 'j-bool';
    shown = String(value);
  }
  return el('div', { class: 'j-leaf' }, label(key), el('span', { class: kind }, shown));
}
