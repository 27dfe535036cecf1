/** Replay, copy as curl, download the raw body, delete. */
import { apiBlob, apiSend } from '../api.js';
import { describeError, toast, type AppState } from '../app-state.js';
import { button, el, replaceChildren, vtext } from '../dom.js';
import { curlCommand } from '../shell.js';
import type { DeliveryDetail } from '../types.js';
import { copyText } from './copy.js';

interface ReplayAnswer {
  ok: boolean;
  status: number | null;
  error?: string;
  target: string | null;
}

/** Replays delivery `id` to `to` (empty: where the relay sends it) and says in `result` what came back. */
export async function replayInto(result: HTMLElement, id: string, to: string): Promise<void> {
  replaceChildren(result, 'Replaying…');
  try {
    const { data } = await apiSend<ReplayAnswer>('POST', `/api/deliveries/${encodeURIComponent(id)}/replay`, to ? { to } : {});
    const where = data.target ?? 'the forward target';
    replaceChildren(
      result,
      el('span', { class: `chip ${data.ok ? 'chip-accepted' : 'chip-rejected'}` }, data.ok ? 'replayed' : 'replay failed'),
      ' ',
      vtext(`${where} answered ${data.status ?? 'nothing'}${data.error ? ` (${data.error})` : ''}`),
    );
  } catch (err) {
    replaceChildren(result, el('span', { class: 'error' }, vtext(describeError(err))));
  }
}

export function detailActions(state: AppState, d: DeliveryDetail, onDeleted: (id: string) => void): HTMLElement {
  const id = d.delivery.id;
  const features = state.status.features;
  const result = el('div', { class: 'action-result', attrs: { 'data-testid': 'action-result', 'aria-live': 'polite' } });
  const target = el('input', {
    class: 'replay-to',
    attrs: {
      type: 'url',
      placeholder: state.status.forwardTo ?? 'http://localhost:3000/webhooks',
      'aria-label': 'Replay target (empty: the configured forward target)',
      'data-testid': 'replay-to',
      size: 32,
    },
  });

  const curl = () => {
    const command = curlCommand({
      url: state.status.receiverUrl,
      headers: d.headers,
      text: d.body.text,
      base64: d.body.base64,
      exactBytesNeeded: d.body.bom || d.body.invalidUtf8,
    });
    replaceChildren(
      result,
      el('p', { class: 'muted' }, 'The command carries the original signature: a receiver checking timestamps refuses it once the tolerance has passed. Replay signs afresh.'),
      el('textarea', { class: 'curl', attrs: { readonly: true, rows: 8, spellcheck: 'false', 'data-testid': 'curl' } }, command),
    );
    void copyText(command, 'curl command copied');
  };

  const download = async () => {
    try {
      const blob = await apiBlob(`/api/deliveries/${encodeURIComponent(id)}/raw`);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url; // our own blob: URL, never data from the delivery
      link.download = `${id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'delivery'}.body`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      toast(describeError(err), 'error');
    }
  };

  let armed = false;
  const remove = async (event: MouseEvent) => {
    const btn = event.currentTarget as HTMLButtonElement;
    if (!armed) {
      armed = true;
      btn.textContent = 'Really delete?';
      return;
    }
    try {
      await apiSend('DELETE', `/api/deliveries/${encodeURIComponent(id)}`);
      toast('delivery deleted');
      onDeleted(id);
    } catch (err) {
      toast(describeError(err), 'error');
    }
  };

  return el(
    'div',
    { class: 'actions' },
    features.replay ? el('span', { class: 'replay' }, button('Replay', () => void replayInto(result, id, target.value.trim()), { class: 'btn btn-primary', testid: 'replay' }), target) : null,
    button('Copy as curl', curl, { testid: 'copy-curl' }),
    button('Download raw body', () => void download(), { testid: 'download' }),
    features.remove ? button('Delete', (e) => void remove(e), { class: 'btn btn-danger', testid: 'delete' }) : null,
    result,
  );
}
