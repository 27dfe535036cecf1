/** The body: a JSON tree, the raw text, and the bytes when the encoding is not clean. */
import { button, el, replaceChildren, vtext } from '../dom.js';
import { formatBytes } from '../format.js';
import { parseJsonSource } from '../json-source.js';
import { jsonSourceTree } from '../json-tree.js';
import type { BodyView } from '../types.js';

const RAW_MAX_CHARS = 500_000;
const HEX_MAX_BYTES = 1024;

/** `offset  hex bytes  ascii` lines of the first bytes. */
export function hexDump(base64: string, max = HEX_MAX_BYTES): string {
  const binary = atob(base64);
  const lines: string[] = [];
  for (let offset = 0; offset < Math.min(binary.length, max); offset += 16) {
    const chunk = binary.slice(offset, offset + 16);
    const hex = [...chunk].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join(' ');
    const ascii = [...chunk].map((c) => (c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) < 0x7f ? c : '.')).join('');
    lines.push(`${offset.toString(16).padStart(6, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  if (binary.length > max) lines.push(`… ${binary.length - max} more bytes (download the raw body)`);
  return lines.join('\n');
}

/**
 * The view last chosen for each kind of body (by test id and title). A live refresh rebuilds a
 * detail's attempts and relay tries: without this, each refresh put a body the user had switched to
 * Bytes back on its first view.
 */
const chosenViews = new Map<string, string>();

export interface BodySectionOptions {
  /** The heading (default "Body"). */
  title?: string;
  /** Prefix of every test id, so that several bodies on one page stay apart. */
  testid?: string;
  /** What a body too large to show offers instead (default: a pointer to the download button above). */
  tooLarge?: HTMLElement;
}

export function bodySection(body: BodyView, options: BodySectionOptions = {}): HTMLElement {
  const title = options.title ?? 'Body';
  const prefix = options.testid ?? '';
  const flags = el(
    'p',
    { class: 'flags', attrs: { 'data-testid': `${prefix}body-flags` } },
    el('span', { class: 'chip' }, formatBytes(body.bytes)),
    body.bom ? el('span', { class: 'chip chip-warn' }, 'starts with a UTF-8 BOM (skipped for reading, kept in the bytes)') : null,
    body.invalidUtf8 ? el('span', { class: 'chip chip-warn' }, 'invalid UTF-8 (shown as �, exact bytes kept)') : null,
  );
  if (!body.inline) {
    return el('section', { class: 'block' }, el('h3', null, title), flags, options.tooLarge ?? el('p', { class: 'muted' }, 'Too large to show here: download the raw body.'));
  }
  // From the source text, so numbers show their digits as sent (JSON.parse would round them).
  const parsed = parseJsonSource(body.text);
  if (!parsed.ok) flags.appendChild(el('span', { class: 'chip chip-rejected' }, vtext(`not JSON: ${parsed.error}`, { max: 200 })));

  const pane = el('div', { class: 'body-pane' });
  const views: Record<string, () => HTMLElement> = {
    Tree: () => (parsed.ok ? jsonSourceTree(parsed.value) : el('p', { class: 'muted' }, 'The body is not JSON: see Raw.')),
    Raw: () => el('pre', { class: 'raw', attrs: { 'data-testid': `${prefix}raw-body` } }, vtext(body.text, { multiline: true, max: RAW_MAX_CHARS })),
    Bytes: () => el('pre', { class: 'raw hex', attrs: { 'data-testid': `${prefix}hex-body` } }, hexDump(body.base64)),
  };
  const tabs = el('div', { class: 'tabs', attrs: { role: 'tablist' } });
  const select = (name: string) => {
    for (const tab of tabs.children) tab.setAttribute('aria-selected', tab.textContent === name ? 'true' : 'false');
    replaceChildren(pane, views[name]!());
  };
  const kind = `${prefix}|${title}`;
  for (const name of Object.keys(views)) {
    const tab = button(name, () => (chosenViews.set(kind, name), select(name)), { class: 'tab', testid: `${prefix}body-tab-${name.toLowerCase()}` });
    tab.setAttribute('role', 'tab');
    tabs.appendChild(tab);
  }
  const chosen = chosenViews.get(kind);
  select(chosen && (chosen !== 'Tree' || parsed.ok) ? chosen : parsed.ok ? 'Tree' : 'Raw');
  return el('section', { class: 'block' }, el('h3', null, title), flags, tabs, pane);
}
