/** The fault rules panel: list, add or edit (one-line form, or JSON) with live validation, reorder, remove, clear. */
import { ApiError, apiGet, apiSend } from '../api.js';
import { describeError, toast, type AppState } from '../app-state.js';
import { button, el, replaceChildren, vtext } from '../dom.js';

export interface FaultsView {
  element: HTMLElement;
  refresh(): Promise<void>;
}

interface Validation {
  valid: boolean;
  message?: string;
  column?: number;
  rule?: { shadowedBy?: string };
}

/** The id of the earlier rule that hides this one (the API's `shadowedBy`), if any. */
const shadowedBy = (item: unknown): string | null => {
  const by = (item as { shadowedBy?: unknown } | null)?.shadowedBy;
  return typeof by === 'string' ? by : null;
};
const neverFires = (by: string) => `never fires: rule ${by} above answers every arrival this one matches (move it up, or narrow ${by})`;

/** The rule's id, whether the registry lists rules bare or wrapped (`{id, rule, line}`). */
function ruleId(item: unknown): string | null {
  if (item === null || typeof item !== 'object') return null;
  const own = (item as { id?: unknown }).id;
  if (typeof own === 'string' || typeof own === 'number') return String(own);
  const inner = (item as { rule?: { id?: unknown } }).rule?.id;
  return typeof inner === 'string' || typeof inner === 'number' ? String(inner) : null;
}

/** How often the rule fired; a `times=N` rule that fired N times is used up and says so. */
function firedChip(item: unknown): HTMLElement | null {
  const fired = (item as { fired?: unknown } | null)?.fired;
  if (typeof fired !== 'number') return null;
  const times = (item as { rule?: { limit?: { times?: unknown } } }).rule?.limit?.times;
  const usedUp = typeof times === 'number' && fired >= times;
  return el('span', { class: `chip${usedUp ? ' chip-muted' : ''}` }, usedUp ? `fired ${fired}× — used up, no longer fires` : `fired ${fired}×`);
}

/** The one-line form when the registry gives it, else compact JSON. */
function ruleText(item: unknown): string {
  if (item !== null && typeof item === 'object') {
    for (const key of ['line', 'source', 'text'] as const) {
      const value = (item as Record<string, unknown>)[key];
      if (typeof value === 'string') return value;
    }
  }
  return JSON.stringify(item);
}

/** What the form sends: JSON when the text is a JSON object, else the one-line form. */
function ruleBody(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      /* sent as a line: the API names the problem */
    }
  }
  return { line: trimmed };
}

export function createFaultsView(state: AppState): FaultsView {
  const features = state.status.features;
  const list = el('ol', { class: 'fault-list', attrs: { 'data-testid': 'fault-list' } });
  const input = el('input', {
    class: 'fault-input',
    attrs: {
      type: 'text',
      placeholder: 'e.g. attempt=1 503 retry-after=120   (or a JSON rule)',
      'aria-label': 'New fault rule',
      'data-testid': 'fault-input',
      spellcheck: 'false',
      autocomplete: 'off',
      maxlength: 8192,
    },
  });
  const none = el('p', { class: 'muted' });
  const problem = el('div', { class: 'fault-problem', attrs: { 'data-testid': 'fault-problem', 'aria-live': 'polite' } });
  const addButton = button('Add rule', () => void add(), { class: 'btn btn-primary', testid: 'fault-add' });
  const clearButton = button('Clear all', () => void clearAll(), { class: 'btn btn-danger', testid: 'fault-clear' });
  const form = el(
    'form',
    { class: 'fault-form', on: { submit: (e) => (e.preventDefault(), void add()) } },
    input,
    addButton,
  );
  const element = el(
    'section',
    { class: 'faults-pane', attrs: { 'data-testid': 'faults' } },
    el('h2', null, 'Fault rules'),
    el('p', { class: 'muted' }, 'Rules decide how the receiver answers matching arrivals (first match wins). Changes apply to the next arrival.'),
    features.faults ? form : el('p', { class: 'notice' }, 'Fault rules are not available in this process.'),
    problem,
    none,
    list,
    features.faults ? el('div', { class: 'older' }, clearButton) : null,
  );

  const showProblem = (message: string | null, column?: number) => {
    input.setAttribute('aria-invalid', message ? 'true' : 'false');
    if (!message) return replaceChildren(problem);
    const text = input.value;
    const caret =
      typeof column === 'number' && column >= 1 && column <= text.length + 1
        ? el('pre', { class: 'caret' }, vtext(text, { max: 500 }), '\n', `${' '.repeat(Math.min(column - 1, 500))}^`)
        : null;
    // The server's message already ends "at column N": say it once.
    const said = typeof column === 'number' && !message.includes(`column ${column}`) ? `column ${column}: ${message}` : message;
    replaceChildren(problem, el('span', { class: 'error' }, vtext(said, { max: 500 })), caret);
  };
  const showWarning = (message: string) => {
    input.setAttribute('aria-invalid', 'false');
    replaceChildren(problem, el('span', { class: 'warn', attrs: { 'data-testid': 'fault-warning' } }, vtext(message, { max: 500 })));
  };

  const refresh = async () => {
    if (!features.faults) return;
    try {
      const { data } = await apiGet<unknown[]>('/api/faults');
      replaceChildren(none, data.length === 0 ? 'No rules: every arrival is handled normally.' : '');
      replaceChildren(
        list,
        ...data.map((item, index) => {
          const id = ruleId(item);
          return el(
            'li',
            { class: 'fault', attrs: { 'data-testid': 'fault-rule' } },
            id !== null ? el('code', { class: 'fault-id' }, vtext(id, { max: 80 })) : null,
            el('code', { class: 'fault-text' }, vtext(ruleText(item), { max: 2000 })),
            firedChip(item),
            shadowedBy(item) !== null ? el('span', { class: 'warn', attrs: { 'data-testid': 'fault-shadowed' } }, vtext(neverFires(shadowedBy(item)!), { max: 300 })) : null,
            id !== null && index > 0 ? button('↑', () => void move(id, index), { class: 'btn btn-small', testid: 'fault-up', title: 'try this rule earlier' }) : null,
            id !== null && index < data.length - 1 ? button('↓', () => void move(id, index + 2), { class: 'btn btn-small', testid: 'fault-down', title: 'try this rule later' }) : null,
            id !== null ? button('Edit', () => startEdit(id, ruleText(item)), { class: 'btn btn-small', testid: 'fault-edit' }) : null,
            id !== null ? button('Remove', () => void remove(id), { class: 'btn btn-small', testid: 'fault-remove' }) : null,
          );
        }),
      );
      clearButton.hidden = data.length === 0;
    } catch (err) {
      replaceChildren(list, el('li', { class: 'error' }, `Could not load the rules: ${describeError(err)}`));
    }
  };

  // Editing puts a rule's text in the form; saving replaces it in place (same id, same place, its fire count kept).
  let editing: string | null = null;
  const cancelButton = button('Cancel', () => stopEdit(), { class: 'btn', testid: 'fault-cancel' });
  cancelButton.hidden = true;
  form.append(cancelButton);
  const startEdit = (id: string, text: string) => {
    editing = id;
    input.value = text;
    addButton.textContent = `Save ${id}`;
    cancelButton.hidden = false;
    showProblem(null);
    input.focus();
  };
  const stopEdit = () => {
    editing = null;
    input.value = '';
    addButton.textContent = 'Add rule';
    cancelButton.hidden = true;
    showProblem(null);
  };

  const move = async (id: string, position: number) => {
    try {
      await apiSend('POST', `/api/faults/${encodeURIComponent(id)}/move`, { position });
      await refresh();
    } catch (err) {
      toast(describeError(err), 'error');
    }
  };

  const add = async () => {
    if (!input.value.trim()) return showProblem('write a rule first');
    try {
      const { data } = editing !== null
        ? await apiSend<unknown>('PUT', `/api/faults/${encodeURIComponent(editing)}`, ruleBody(input.value))
        : await apiSend<unknown>('POST', '/api/faults', ruleBody(input.value));
      const saved = editing;
      if (saved !== null) stopEdit();
      input.value = '';
      const by = shadowedBy(data);
      if (by !== null) showWarning(`added, but it ${neverFires(by)}`);
      else showProblem(null);
      toast(saved !== null ? `rule ${saved} saved` : 'rule added');
      await refresh();
    } catch (err) {
      const column = err instanceof ApiError ? (err.details as { column?: number } | undefined)?.column : undefined;
      showProblem(describeError(err), column);
    }
  };

  const remove = async (id: string) => {
    try {
      await apiSend('DELETE', `/api/faults/${encodeURIComponent(id)}`);
      await refresh();
    } catch (err) {
      toast(describeError(err), 'error');
    }
  };

  let armed = false;
  const clearAll = async () => {
    if (!armed) {
      armed = true;
      clearButton.textContent = 'Really clear every rule?';
      return;
    }
    armed = false;
    clearButton.textContent = 'Clear all';
    try {
      await apiSend('DELETE', '/api/faults');
      await refresh();
    } catch (err) {
      toast(describeError(err), 'error');
    }
  };

  // Live validation while typing, when the registry offers it.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    if (!features.faultValidation) return;
    if (!input.value.trim()) return showProblem(null);
    timer = setTimeout(async () => {
      const mine = ++generation;
      try {
        const { data } = await apiSend<Validation>('POST', '/api/faults/validate', ruleBody(input.value));
        if (mine !== generation) return;
        const by = data.valid ? shadowedBy(data.rule) : null;
        if (by !== null) showWarning(`this rule would ${neverFires(by)}`);
        else showProblem(data.valid ? null : (data.message ?? 'invalid rule'), data.column);
      } catch {
        /* validation is a convenience: Add reports the real answer */
      }
    }, 250);
  });

  return { element, refresh };
}
