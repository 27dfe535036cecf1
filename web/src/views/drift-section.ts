/**
 * Schema drift in one delivery's detail: known fields missing or of another type than the trigger's
 * schema says. A warning only: the delivery was accepted (spec 9.2, `/v1` only adds fields). Each
 * line holds text from the body, so it goes in as text, its invisible characters shown.
 */
import { el, vtext } from '../dom.js';
import type { SchemaDriftView } from '../types.js';

export function driftSection(drift: SchemaDriftView | null | undefined): HTMLElement | null {
  if (!drift) return null;
  const count = drift.problems.length + drift.more;
  return el(
    'section',
    { class: 'block', attrs: { 'data-testid': 'schema-drift' } },
    el('h3', null, 'Schema drift'),
    el(
      'div',
      { class: 'notice', attrs: { role: 'status' } },
      el(
        'p',
        null,
        el('span', { class: 'chip chip-warn' }, 'warning'),
        ` ${count} known field${count === 1 ? '' : 's'} missing or of another type than the `,
        vtext(drift.trigger, { max: 200 }),
        ' schema says. Accepted all the same: see ',
        el('code', null, 'hookrelay schema'),
        '.',
      ),
      el('ul', { class: 'drift-list' }, ...drift.problems.map((line) => el('li', null, vtext(line, { max: 300 })))),
      drift.more > 0 ? el('p', null, `… and ${drift.more} more`) : null,
    ),
  );
}
