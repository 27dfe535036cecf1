/** What a new user sees before the first delivery: exactly what to run. */
import { button, el, vtext } from '../dom.js';
import { sendCommand } from '../shell.js';
import type { Status } from '../types.js';
import { copyText } from './copy.js';

export function emptyState(status: Status): HTMLElement {
  const command = sendCommand(status.receiverUrl);
  const hints = status.secretHints;
  return el(
    'section',
    { class: 'empty', attrs: { 'data-testid': 'empty-state' } },
    el('h2', null, 'No deliveries yet'),
    el('p', null, 'hookrelay is receiving at ', el('code', { attrs: { 'data-testid': 'receiver-url' } }, vtext(status.receiverUrl)), '. Send a signed test delivery from this folder (the one you started listen in):'),
    el(
      'div',
      { class: 'command' },
      el('pre', { attrs: { 'data-testid': 'send-command' } }, el('code', null, vtext(command))),
      button('Copy', () => void copyText(command, 'command copied'), { class: 'btn btn-small' }),
    ),
    status.skipVerify
      ? el('p', { class: 'warn' }, 'Signature verification is OFF (--skip-verify): every delivery is accepted unsigned.')
      : el(
          'p',
          null,
          hints.length > 0
            ? el('span', null, 'Deliveries are verified with the secret ', el('code', { attrs: { 'data-testid': 'secret-hint' } }, vtext(hints[0]!)), hints.length > 1 ? ` (and ${hints.length - 1} more for rotation)` : '', '. ')
            : 'No secret is configured. ',
          "`send` finds listen's development secret in this folder, so here it needs no flags; from another folder, point it at listen's database with --db. If you started listen with --secret, give send the same --secret.",
        ),
    el('p', null, 'To receive from the service itself, expose the receiver (not this console) through a tunnel and register that URL as the webhook endpoint.'),
  );
}
