/** The live list: filters, pause/resume, newest first, one row per delivery. */
import { apiGet, apiSend, query } from '../api.js';
import { describeError, toast, type AppState } from '../app-state.js';
import { button, el, replaceChildren, vtext } from '../dom.js';
import { formatBytes, formatDuration, formatTime } from '../format.js';
import { attemptsText, historyText, keyOf, relayJobsLines, relayJobsText, relayLines, relayText, verdictChipText, verdictClass, verdictText, type Row, type StatusFilter } from '../rows.js';
import type { AttemptView, DeliverySummary, ReplayJob } from '../types.js';
import { shorten, visibleString } from '../visible.js';
import { emptyState } from './empty-state.js';

export interface ListView {
  element: HTMLElement;
  /** Re-renders on the next frame (many feed messages make one render). */
  render(): void;
  /** Reloads the first page from the API (start, filter change, resync). */
  reload(): Promise<void>;
  /** Moves the keyboard focus to the next (+1) or previous (-1) row shown. */
  moveFocus(step: 1 | -1): void;
  /** Puts the keyboard focus on the row with this key, if shown. */
  focusRow(key: string): void;
  setPausedCount(count: number): void;
}

const PAGE = 50;

export function createListView(state: AppState, handlers: { onSelect(row: Row): void; onPauseToggle(): void; onReplayJob?(job: ReplayJob): void }): ListView {
  // Bulk replay (issue 39): rows chosen by their box, or everything the filter matches.
  const bulk = state.status.features.bulkReplay === true;
  const chosen = new Set<string>();
  const replayChosen = button('Replay chosen', () => void startJob({ ids: [...chosen] }), { class: 'btn', testid: 'replay-chosen', title: 'Replay the deliveries whose box is ticked, as one job' });
  const replayMatching = button('Replay all matching', () => void replayAllMatching(), {
    class: 'btn',
    testid: 'replay-matching',
    title: 'Replay every stored delivery this filter matches (not only those loaded), as one job',
  });
  const syncBulk = () => {
    replayChosen.textContent = `Replay chosen (${chosen.size})`;
    replayChosen.disabled = chosen.size === 0;
    const byAttempts = state.filter.status === 'rejected' || state.filter.status === 'faulted';
    replayMatching.disabled = byAttempts;
    replayMatching.title = byAttempts
      ? 'This filter selects arrivals that were refused, which stored nothing: tick the rows of stored deliveries to replay them'
      : 'Replay every stored delivery this filter matches (not only those loaded), as one job';
  };
  let starting = false;
  const startJob = async (body: Record<string, unknown>) => {
    // One job per click: a second click while the first is being started does nothing.
    if (starting) return;
    starting = true;
    replayChosen.disabled = replayMatching.disabled = true;
    try {
      const { data } = await apiSend<ReplayJob>('POST', '/api/replay-jobs', body);
      handlers.onReplayJob?.(data);
      chosen.clear();
      render();
    } catch (err) {
      toast(`could not start the replay: ${describeError(err)}`, 'error');
    } finally {
      starting = false;
      syncBulk();
    }
  };
  const replayAllMatching = () => {
    const filter = { trigger: state.filter.trigger, text: state.filter.text.trim(), status: state.filter.status === 'duplicate' ? 'duplicate' : '' };
    if (!confirm('Replay every stored delivery this filter matches, oldest first, to the forward target?')) return;
    void startJob({ filter });
  };

  const triggerSelect = el('select', { attrs: { 'aria-label': 'Filter by trigger', 'data-testid': 'filter-trigger' } });
  const statusSelect = el(
    'select',
    { attrs: { 'aria-label': 'Filter by status', 'data-testid': 'filter-status' } },
    ...([['', 'all statuses'], ['accepted', 'accepted'], ['duplicate', 'duplicate'], ['rejected', 'rejected'], ['faulted', 'faulted']] as const).map(
      ([value, label]) => el('option', { attrs: { value } }, label),
    ),
  );
  const textInput = el('input', {
    class: 'filter-text',
    attrs: { type: 'search', placeholder: 'Search id, trigger, reason, body…', 'aria-label': 'Search', 'data-testid': 'filter-text', maxlength: 255 },
  });
  const pauseButton = button('Pause', () => handlers.onPauseToggle(), { class: 'btn', testid: 'pause' });
  const count = el('span', { class: 'count', attrs: { 'aria-live': 'polite' } });
  const tbody = el('tbody', { attrs: { 'data-testid': 'delivery-rows' } });
  const table = el(
    'table',
    { class: 'list' },
    el(
      'thead',
      null,
      el(
        'tr',
        null,
        bulk ? el('th', { class: 'c-choose', attrs: { title: 'Choose for a bulk replay' } }, '') : null,
        el('th', { class: 'c-time' }, 'Time'),
        el('th', { class: 'c-trigger' }, 'Trigger · delivery'),
        el('th', { class: 'c-verdict' }, 'Verdict'),
        el('th', { class: 'c-num c-status', attrs: { title: 'The status hookrelay answered to the latest attempt' } }, 'Status'),
        el('th', { class: 'c-num', attrs: { title: 'Arrivals of this delivery, whatever their outcome' } }, 'Tries'),
        el('th', { class: 'c-num c-size', attrs: { title: 'Body size' } }, 'Size'),
        el('th', { class: 'c-num c-took', attrs: { title: 'How long hookrelay took to answer the latest attempt' } }, 'Took'),
        el('th', { class: 'c-relay' }, 'Relay'),
      ),
    ),
    tbody,
  );
  const placeholder = el('div');
  const older = button('Load older deliveries', () => void loadOlder(), { class: 'btn btn-small', testid: 'load-older' });
  const element = el(
    'section',
    { class: 'list-pane' },
    el('div', { class: 'filters' }, triggerSelect, statusSelect, textInput, pauseButton, bulk ? replayChosen : null, bulk ? replayMatching : null, count),
    table,
    placeholder,
    el('div', { class: 'older' }, older),
  );

  let frame = 0;
  const render = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      draw();
    });
  };

  /** A render that is due happens now (the keyboard acts on the rows shown). */
  const drawNow = () => {
    if (!frame) return;
    cancelAnimationFrame(frame);
    frame = 0;
    draw();
  };

  const draw = () => {
    const rows = state.rows.list(state.filter, state.serverMatches);
    // Rows are rebuilt on each draw: keep the keyboard focus on the row that had it.
    const focused = document.activeElement instanceof HTMLElement && tbody.contains(document.activeElement) ? document.activeElement.getAttribute('data-key') : null;
    replaceChildren(tbody, ...rows.slice(0, 500).map(rowElement));
    if (focused !== null) rowNode(focused)?.focus({ preventScroll: true });
    const filtering = state.filter.trigger !== '' || state.filter.status !== '' || state.filter.text.trim() !== '';
    count.textContent = `${rows.length} shown`;
    if (state.rows.size() === 0 && !filtering) replaceChildren(placeholder, emptyState(state.status));
    else if (rows.length === 0) replaceChildren(placeholder, el('p', { class: 'muted' }, 'Nothing matches these filters.'));
    else replaceChildren(placeholder);
    table.hidden = rows.length === 0;
    older.hidden = state.nextCursor === null;
    if (bulk) syncBulk();
    syncTriggers();
  };

  const tip = (text: string | null) => (text === null ? null : shorten(visibleString(text), 300));

  /** A dotted name (`trustcenter.access_requested`) that may wrap after a dot, never inside a word. */
  const dotted = (name: string): HTMLElement => {
    const span = el('span', { class: 'dotted' });
    const parts = name.slice(0, 120).split('.');
    parts.forEach((part, i) => {
      span.appendChild(vtext(i < parts.length - 1 ? `${part}.` : part));
      if (i < parts.length - 1) span.appendChild(document.createElement('wbr'));
    });
    if (name.length > 120) span.appendChild(el('span', { class: 'more' }, '…'));
    return span;
  };

  const history = (row: Row): HTMLElement | null => {
    const text = historyText(row);
    return text === null ? null : el('div', { class: 'history', attrs: { 'data-testid': 'row-history' } }, text);
  };

  // Two lines at most, each cut with an ellipsis: a relay error must not make the row eight lines tall.
  // A fan-out (several targets) says its jobs by state on the second line; each target is in the title.
  const relayCell = (row: Row): HTMLElement => {
    const [what, why] = relayLines(row.relay);
    const jobs = relayJobsText(row.relayJobs);
    const dead = row.relayJobs?.some((job) => job.state === 'dead') ?? false;
    const title = [relayText(row.relay), ...(jobs === null ? [] : [jobs, ...relayJobsLines(row.relayJobs)])].join('; ');
    const second = jobs ?? why;
    return el(
      'td',
      { class: `relay${(row.relay && !row.relay.ok) || dead ? ' relay-failed' : ''}`, attrs: { title: tip(title) } },
      el('div', { class: 'cut' }, what),
      second === null ? null : el('div', { class: 'cut', attrs: { 'data-testid': jobs === null ? null : 'row-relay-jobs' } }, vtext(second, { max: 200 })),
    );
  };

  const rowNode = (key: string): HTMLElement | null => {
    for (const tr of tbody.children) if (tr.getAttribute('data-key') === key) return tr as HTMLElement;
    return null;
  };

  /** A box for a row with a stored delivery (a rejected attempt stored none): its own clicks never open the detail. */
  const chooseCell = (row: Row): HTMLElement => {
    const id = row.stored ? row.deliveryId : null;
    if (id === null) return el('td', { class: 'choose' });
    const box = el('input', { attrs: { type: 'checkbox', 'aria-label': 'Choose for a bulk replay', 'data-testid': 'row-choose' } });
    box.checked = chosen.has(id);
    box.addEventListener('click', (event) => event.stopPropagation());
    box.addEventListener('keydown', (event) => event.stopPropagation());
    box.addEventListener('change', () => {
      if (box.checked) chosen.add(id);
      else chosen.delete(id);
      syncBulk();
    });
    return el('td', { class: 'choose' }, box);
  };

  const rowElement = (row: Row): HTMLElement => {
    const tr = el(
      'tr',
      {
        class: `row${row.key === state.selected ? ' selected' : ''}`,
        attrs: { tabindex: 0, 'data-key': row.key, 'aria-selected': row.key === state.selected ? 'true' : 'false' },
        on: {
          click: () => handlers.onSelect(row),
          keydown: (event) => {
            if (event.key === 'Enter') handlers.onSelect(row);
          },
        },
      },
      bulk ? chooseCell(row) : null,
      // Seconds in the list, milliseconds in the title: the list is in order anyway.
      el('td', { class: 'time', attrs: { title: row.lastSeen ? formatTime(row.lastSeen) : null } }, row.lastSeen ? formatTime(row.lastSeen).slice(0, 8) : ''),
      el(
        'td',
        { class: 'trigger', attrs: { title: tip(row.trigger) } },
        el('div', { class: 'trigger-name' }, row.trigger === null ? el('span', { class: 'muted' }, '(none)') : dotted(row.trigger)),
        el('div', { class: 'id', attrs: { title: tip(row.deliveryId) } }, row.deliveryId === null ? el('span', { class: 'muted' }, '(no delivery id)') : vtext(row.deliveryId, { max: 60 })),
      ),
      el(
        'td',
        { class: 'verdict', attrs: { title: tip(verdictText(row)) } },
        el('span', { class: `chip chip-wrap chip-${verdictClass(row)}` }, vtext(verdictChipText(row), { max: 120 })),
        row.skipVerify ? el('span', { class: 'chip chip-warn', attrs: { title: '--skip-verify' } }, 'unverified') : null,
        history(row),
      ),
      el('td', { class: 'num status' }, row.latestSeq === 0 ? '' : row.status === null ? el('span', { class: 'muted', attrs: { title: 'no answer: the connection ended without a response' } }, 'none') : String(row.status)),
      el('td', { class: 'num tries' }, attemptsText(row)),
      el('td', { class: 'num size' }, row.bodyBytes === null ? '' : formatBytes(row.bodyBytes)),
      el('td', { class: 'num took' }, row.durationMs === null ? '' : formatDuration(row.durationMs)),
      relayCell(row),
    );
    return tr;
  };

  let knownTriggers: string | null = null;
  const syncTriggers = () => {
    const triggers = state.rows.triggers();
    if (state.filter.trigger && !triggers.includes(state.filter.trigger)) triggers.push(state.filter.trigger);
    const signature = triggers.join('\n');
    if (signature === knownTriggers) return;
    knownTriggers = signature;
    replaceChildren(triggerSelect, el('option', { attrs: { value: '' } }, 'all triggers'), ...triggers.map((t) => el('option', { attrs: { value: t } }, shorten(visibleString(t), 80))));
    triggerSelect.value = state.filter.trigger;
  };

  const deliveriesQuery = (cursor: string | null) =>
    `/api/deliveries${query({
      limit: PAGE,
      cursor,
      trigger: state.filter.trigger,
      status: state.filter.status === 'accepted' || state.filter.status === 'duplicate' ? state.filter.status : '',
      text: state.filter.text.trim(),
    })}`;

  let generation = 0;
  const reload = async () => {
    const mine = ++generation;
    try {
      const [deliveries, arrivals] = await Promise.all([
        apiGet<Array<DeliverySummary>>(deliveriesQuery(null)),
        apiGet<AttemptView[]>(`/api/attempts${query({ limit: 100, outcome: 'rejected,faulted,unavailable' })}`),
      ]);
      if (mine !== generation) return;
      for (const d of deliveries.data) state.rows.applyDelivery(d);
      for (const a of arrivals.data) state.rows.applyAttempt(a);
      state.serverMatches = state.filter.text.trim() ? new Set(deliveries.data.map((d) => keyOf(d.id, d.seq))) : null;
      state.nextCursor = deliveries.cursor?.nextCursor ?? null;
      render();
    } catch (err) {
      toast(`could not load deliveries: ${describeError(err)}`, 'error');
    }
  };

  const loadOlder = async () => {
    if (state.nextCursor === null) return;
    try {
      const page = await apiGet<DeliverySummary[]>(deliveriesQuery(state.nextCursor));
      for (const d of page.data) state.rows.applyDelivery(d);
      if (state.serverMatches) for (const d of page.data) state.serverMatches.add(keyOf(d.id, d.seq));
      state.nextCursor = page.cursor?.nextCursor ?? null;
      render();
    } catch (err) {
      toast(`could not load older deliveries: ${describeError(err)}`, 'error');
    }
  };

  let textTimer: ReturnType<typeof setTimeout> | undefined;
  triggerSelect.addEventListener('change', () => {
    state.filter.trigger = triggerSelect.value;
    render();
    void reload();
  });
  statusSelect.addEventListener('change', () => {
    state.filter.status = statusSelect.value as StatusFilter;
    render();
    void reload();
  });
  textInput.addEventListener('input', () => {
    state.filter.text = textInput.value;
    render();
    clearTimeout(textTimer);
    textTimer = setTimeout(() => void reload(), 300);
  });

  return {
    element,
    render,
    reload,
    moveFocus(step) {
      drawNow();
      const rows = [...tbody.children] as HTMLElement[];
      if (rows.length === 0) return;
      const active = document.activeElement;
      let index = rows.findIndex((r) => r === active);
      if (index === -1) index = rows.findIndex((r) => r.getAttribute('data-key') === state.selected);
      const next = index === -1 ? (step === 1 ? 0 : rows.length - 1) : Math.min(rows.length - 1, Math.max(0, index + step));
      rows[next]!.focus();
    },
    focusRow(key) {
      drawNow();
      const node = rowNode(key);
      // Scrolled to even when it has the focus already (it kept it while the detail was open).
      node?.focus({ preventScroll: true });
      node?.scrollIntoView({ block: 'nearest' });
    },
    setPausedCount(queued) {
      pauseButton.textContent = state.paused ? `Resume${queued > 0 ? ` (${queued} new)` : ''}` : 'Pause';
      pauseButton.setAttribute('aria-pressed', state.paused ? 'true' : 'false');
    },
  };
}
