/** A collapsible JSON tree from native <details> elements; every key and value is text. */
import { el, vtext, type Child } from './dom.js';
import { jsonNodeOf, type JsonNode } from './json-source.js';

const MAX_NODES = 5000;
const OPEN_DEPTH = 3;

/** A tree read from source text (json-source.ts): numbers show their digits as written. */
export function jsonSourceTree(root: JsonNode): HTMLElement {
  const budget = { left: MAX_NODES };
  return el('div', { class: 'json-tree', attrs: { 'data-testid': 'json-tree' } }, node(root, null, 0, budget));
}

/** Any JavaScript value (an API answer, never a body: use jsonSourceTree for those). */
export function jsonTree(value: unknown): HTMLElement {
  return jsonSourceTree(jsonNodeOf(value));
}

function label(key: string | null): Child {
  return key === null ? null : el('span', { class: 'j-key' }, vtext(key), ': ');
}

function node(value: JsonNode, key: string | null, depth: number, budget: { left: number }): HTMLElement {
  budget.left -= 1;
  if (value.kind === 'object' || value.kind === 'array') {
    const isArray = value.kind === 'array';
    const entries: Array<[string | null, JsonNode]> = isArray ? value.items.map((v) => [null, v]) : value.entries;
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
      children.appendChild(node(v, k, depth + 1, budget));
    }
    details.appendChild(children);
    return details;
  }
  let shown: Child;
  let kind: string;
  switch (value.kind) {
    case 'string':
      kind = 'j-string';
      shown = el('span', null, '"', vtext(value.value, { max: 10_000 }), '"');
      break;
    case 'number':
      kind = 'j-number';
      shown = vtext(value.text, { max: 10_000 });
      break;
    case 'bool':
      kind = 'j-bool';
      shown = String(value.value);
      break;
    default:
      kind = 'j-null';
      shown = 'null';
  }
  return el('div', { class: 'j-leaf' }, label(key), el('span', { class: kind }, shown));
}
