/** The console page: wires the API, the feed and the views together. */
import './styles.css';
import { ApiError, apiGet, currentToken, initToken } from './api.js';
import { createState, describeError, toast, type AppState } from './app-state.js';
import { button, el, replaceChildren, vtext } from './dom.js';
import { connectFeed, type FeedState } from './feed-client.js';
import { isNarrow } from './layout.js';
import { deliveryKeyOf, keyOf } from './rows.js';
import type { FeedMessage, Status } from './types.js';
import { createBacklogLine, createLagReader } from './views/backlog-view.js';
import { createBridgeLine, mentionsBridge } from './views/bridge-view.js';
import { detailResizer } from './views/detail-resizer.js';
import { createDetailView } from './views/detail-view.js';
import { createFaultsView } from './views/faults-view.js';
import { createListView, type ListView } from './views/list-view.js';
import { createReplayJobsView } from './views/replay-jobs-view.js';
import { fitToWindow } from './views/sticky-fit.js';
import { createTargetsView } from './views/targets-view.js';

const root = document.getElementById('app')!;

function fatal(title: string, text: string): void {
  replaceChildren(root, el('section', { class: 'fatal', attrs: { 'data-testid': 'fatal' } }, el('h2', null, title), el('p', null, vtext(text))));
}

type Tab = 'deliveries' | 'faults';

function headerBar(status: Status, onTab: (tab: Tab) => void, bridgeLine: HTMLElement | null, backlogLine: HTMLElement): { element: HTMLElement; setFeedState(state: FeedState): void; setTab(tab: Tab): void } {
  const tabs: Record<Tab, HTMLButtonElement> = {
    deliveries: button('Deliveries', () => onTab('deliveries'), { class: 'tab', testid: 'tab-deliveries' }),
    faults: button('Fault rules', () => onTab('faults'), { class: 'tab', testid: 'tab-faults' }),
  };
  const dot = el('span', { class: 'feed-state', attrs: { 'data-testid': 'feed-state', 'data-state': 'connecting' } }, 'connecting');
  const element = el(
    'header',
    { class: 'top' },
    el('h1', null, 'hookrelay'),
    el('span', { class: 'muted' }, 'receiving at ', el('code', null, vtext(status.receiverUrl))),
    status.forwardTo ? el('span', { class: 'muted' }, ' → ', el('code', null, vtext(status.forwardTo))) : null,
    backlogLine,
    bridgeLine,
    el('nav', { class: 'tabs-top' }, tabs.deliveries, tabs.faults),
    dot,
  );
  return {
    element,
    setFeedState(state) {
      dot.setAttribute('data-state', state);
      dot.textContent = state === 'live' ? 'live' : state;
    },
    setTab(tab) {
      for (const [name, node] of Object.entries(tabs)) node.setAttribute('aria-selected', name === tab ? 'true' : 'false');
    },
  };
}

function start(state: AppState): void {
  const detail = createDetailView(state, (id) => {
    state.rows.remove(id);
    location.hash = '#/';
    list.render();
  });
  const replayJobs = createReplayJobsView();
  if (state.status.features.bulkReplay === true) void replayJobs.load();
  const list = createListView(state, {
    onReplayJob: (job) => replayJobs.apply(job),
    onSelect: (row) => {
      location.hash = row.deliveryId !== null ? `#/d/${encodeURIComponent(row.deliveryId)}` : `#/a/${row.key.slice(2)}`;
    },
    onPauseToggle: () => {
      state.paused = !state.paused;
      if (!state.paused) {
        for (const message of queued.splice(0)) apply(message);
        queuedKeys.clear();
        list.render();
      }
      list.setPausedCount(queuedKeys.size);
    },
  });
  const faults = createFaultsView(state);
  list.element.insertBefore(replayJobs.element, list.element.children[1] ?? null);
  const deliveriesPane = el('div', { class: 'split' }, list.element);
  deliveriesPane.append(detailResizer(deliveriesPane, detail.element), detail.element);
  // Lag and backlog (issue 39) from the console's /metrics: the relay's line, and seconds on the bridge's.
  // Read only where the server says /metrics answers: a 404 would be an error in the browser's console.
  const lag = createLagReader(state.status.features.metrics === true);
  const bridge = state.status.features.bridge === true ? createBridgeLine(lag) : null;
  // The relay's targets with their pace, paused and resumed here, where the server lists them.
  const targets = state.status.features.targets === true ? createTargetsView() : null;
  const header = headerBar(state.status, (tab) => (location.hash = tab === 'faults' ? '#/faults' : '#/'), bridge?.element ?? null, createBacklogLine(lag));

  replaceChildren(
    root,
    header.element,
    state.status.skipVerify
      ? el('div', { class: 'banner', attrs: { role: 'alert' } }, 'Signature verification is OFF (--skip-verify): deliveries are accepted without checking who sent them.')
      : null,
    targets?.element ?? null,
    deliveriesPane,
    faults.element,
  );
  const fitDetail = fitToWindow(detail.element, header.element);

  const queued: FeedMessage[] = [];
  // The deliveries the queued messages concern: "Resume (N new)" counts these, not messages.
  const queuedKeys = new Set<string>();
  const apply = (message: FeedMessage) => {
    switch (message.type) {
      case 'attempt':
        state.rows.applyAttempt(message.data);
        return message.data.deliveryId;
      case 'delivery':
        state.rows.applyDelivery(message.data);
        return message.data.id;
      case 'relay':
        state.rows.applyRelay(message.data.deliveryId, message.data);
        return message.data.deliveryId;
      case 'deleted':
        state.rows.remove(message.data.id);
        if (state.selected === keyOf(message.data.id, 0)) location.hash = '#/';
        return null;
      default:
        return null;
    }
  };

  const onMessage = (message: FeedMessage) => {
    if (!('data' in message) || message.data === null) return;
    if (message.type === 'relay' || message.type === 'delivery') lag.refreshSoon();
    if (message.type === 'rules') return void faults.refresh();
    if (message.type === 'replayJob') return replayJobs.apply(message.data);
    if (message.type === 'notice') {
      if (bridge && mentionsBridge(message.data.message)) bridge.refresh();
      if (message.data.level !== 'info') toast(message.data.message, message.data.level);
      return;
    }
    if (state.paused) {
      queued.push(message);
      if (queued.length > 5000) queued.shift();
      const key = deliveryKeyOf(message);
      if (key !== null) queuedKeys.add(key);
      list.setPausedCount(queuedKeys.size);
      return;
    }
    const id = apply(message);
    list.render();
    if (id !== null && id !== undefined && state.selected === keyOf(id, 0)) detail.refreshSoon();
  };

  connectFeed(state.status.feedPath, currentToken(), {
    onMessage,
    onState: header.setFeedState,
    onResync: () => void list.reload(),
  });

  const route = () => {
    const hash = location.hash;
    const showFaults = hash === '#/faults';
    deliveriesPane.hidden = showFaults;
    if (targets) targets.element.classList.toggle('off-tab', showFaults);
    faults.element.hidden = !showFaults;
    header.setTab(showFaults ? 'faults' : 'deliveries');
    if (showFaults) {
      void faults.refresh();
      return;
    }
    const match = /^#\/(d|a)\/(.+)$/.exec(hash);
    let opened = false;
    if (!match) {
      state.selected = null;
      detail.close();
    } else {
      let key: string;
      try {
        key = match[1] === 'd' ? `d:${decodeURIComponent(match[2]!)}` : `a:${match[2]!}`;
      } catch {
        return;
      }
      opened = key !== state.selected;
      state.selected = key;
      void detail.show(state.rows.get(key), key);
    }
    fitDetail();
    list.render();
    // Under the list (a narrow window) the detail would open out of sight: go to it, once the list
    // is drawn above it. Esc comes back to the row.
    if (opened && isNarrow()) requestAnimationFrame(() => detail.element.scrollIntoView({ block: 'start' }));
  };
  window.addEventListener('hashchange', route);
  document.addEventListener('keydown', (event) => keyboard(event, state, list, deliveriesPane));
  void list.reload().then(route);
}

/**
 * Keyboard navigation of the list, as in a mail client: j / ↓ next row, k / ↑ previous, Enter opens
 * (the row's own handler), Esc closes the detail and puts the focus back on its row. Keys typed
 * into a field are left alone.
 */
function keyboard(event: KeyboardEvent, state: AppState, list: ListView, pane: HTMLElement): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || pane.hidden) return;
  const target = event.target instanceof HTMLElement ? event.target : null;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  // Arrows scroll whatever has the focus, unless that is the list (or nothing).
  const onList = target === null || target === document.body || target.classList.contains('row');
  switch (event.key) {
    case 'j':
    case 'ArrowDown':
      if (event.key === 'ArrowDown' && !onList) return;
      list.moveFocus(1);
      break;
    case 'k':
    case 'ArrowUp':
      if (event.key === 'ArrowUp' && !onList) return;
      list.moveFocus(-1);
      break;
    case 'Escape': {
      const open = state.selected;
      if (open === null) return;
      location.hash = '#/';
      requestAnimationFrame(() => list.focusRow(open));
      break;
    }
    default:
      return;
  }
  event.preventDefault();
}

async function boot(): Promise<void> {
  initToken();
  try {
    const { data } = await apiGet<Status>('/api/status');
    start(createState(data));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      fatal('This console needs its token', 'Open it with ?token= and its token: the URL hookrelay printed at start holds a token it generated; a token you gave (--console-token or HOOKRELAY_CONSOLE_TOKEN) is not printed, so add it to this page\'s address yourself.');
    } else {
      fatal('The console cannot reach hookrelay', describeError(err));
    }
  }
}

void boot();
