/**
 * The handle between the list and the detail (issue 36, item 9): drag it, or focus it and press
 * ← / → (Home, End), to give the detail more or less of the window; a double click goes back to
 * the default width. The width chosen is kept in localStorage. The list always keeps LIST_MIN px.
 */
import { el } from '../dom.js';

const KEY = 'hookrelay.console.detailWidth';
const MIN = 360;
const LIST_MIN = 420;
const STEP = 40;

function stored(): number | null {
  try {
    const value = Number(localStorage.getItem(KEY));
    return Number.isFinite(value) && value >= MIN ? value : null;
  } catch {
    return null;
  }
}

function store(width: number | null): void {
  try {
    if (width === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, String(width));
  } catch {
    /* storage is off: the width lasts as long as the page */
  }
}

export function detailResizer(split: HTMLElement, pane: HTMLElement): HTMLElement {
  const handle = el('div', {
    class: 'resizer',
    attrs: {
      role: 'separator',
      tabindex: 0,
      'aria-orientation': 'vertical',
      'aria-label': 'Resize the detail',
      'aria-valuemin': MIN,
      title: 'Drag, or focus and press ← →, to resize the detail; double-click for the default width',
    },
  });
  let chosen = stored();

  const widest = () => {
    const style = getComputedStyle(split);
    const room = split.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - handle.offsetWidth;
    return Math.max(MIN, Math.floor(room - LIST_MIN));
  };
  const clamp = (width: number) => Math.round(Math.min(Math.max(width, MIN), widest()));
  const shown = () => pane.getBoundingClientRect().width;

  // The chosen width stays as chosen: a window made narrower and wide again gets it back.
  const apply = () => {
    if (chosen === null) split.style.removeProperty('--detail-width');
    else split.style.setProperty('--detail-width', `${clamp(chosen)}px`);
    handle.setAttribute('aria-valuenow', String(Math.round(shown())));
    handle.setAttribute('aria-valuemax', String(widest()));
  };
  const choose = (width: number | null) => {
    chosen = width === null ? null : clamp(width);
    store(chosen);
    apply();
  };

  handle.addEventListener('pointerdown', (down) => {
    if (down.button !== 0) return;
    down.preventDefault();
    handle.setPointerCapture(down.pointerId);
    const startX = down.clientX;
    const startWidth = shown();
    const move = (event: PointerEvent) => {
      // The handle is on the detail's left: moving it left widens the detail.
      chosen = clamp(startWidth + startX - event.clientX);
      apply();
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      store(chosen);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  });
  handle.addEventListener('keydown', (event) => {
    const steps: Record<string, number> = { ArrowLeft: STEP, ArrowRight: -STEP, Home: -Infinity, End: Infinity };
    const step = steps[event.key];
    if (step === undefined) return;
    event.preventDefault();
    choose(shown() + step);
  });
  handle.addEventListener('dblclick', () => choose(null));
  window.addEventListener('resize', apply);
  requestAnimationFrame(apply);
  return handle;
}
