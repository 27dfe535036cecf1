/**
 * Header lines (`[name, value]`, hostile text) as a table. A name stays on one line, cut with an
 * ellipsis when it is very long (whole in the title); a value wraps at its spaces and punctuation
 * (`trustcenter.` / `access_requested`), breaking a token only when a piece cannot fit a line.
 */
import { el, vtext } from '../dom.js';
import { shorten, visibleString } from '../visible.js';

export function headerTable(headers: ReadonlyArray<readonly [unknown, unknown]>, testid: string): HTMLTableElement {
  return el(
    'table',
    { class: 'kv', attrs: { 'data-testid': testid } },
    el(
      'tbody',
      null,
      ...headers.map(([name, value]) =>
        el(
          'tr',
          null,
          el('th', { attrs: { title: shorten(visibleString(String(name)), 300) } }, el('span', { class: 'kv-name' }, vtext(String(name)))),
          el('td', null, vtext(String(value), { max: 8192, softBreaks: true })),
        ),
      ),
    ),
  );
}
