/** Dates and times as the detail shows them: each whole on one line, never broken at a hyphen or a colon. */
import { el } from '../dom.js';
import { formatDateTime, formatMoment } from '../format.js';

/** `2026-11-21 10:00:36`. */
export const dateTime = (ms: number): HTMLElement => el('span', { class: 'nowrap' }, formatDateTime(ms));

/** For a narrow column: the time of day when it is on `now`'s day (the full date in the title), else the date and time. */
export const moment = (ms: number, now: number): HTMLElement => el('span', { class: 'nowrap', attrs: { title: formatDateTime(ms) } }, formatMoment(ms, now));
