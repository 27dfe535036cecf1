/**
 * Keeps the sticky detail inside the window (issue 36, item 8). CSS cannot know where the pane
 * starts (under the header at the top of the page, 10 px from the top once scrolled), so its
 * height is set to what is left of the window below that, and the pane scrolls by itself. Under the
 * list (a narrow window) the stylesheet's height holds. Returns a function that fits it again soon.
 */
import { isNarrow } from '../layout.js';

const MARGIN = 10;
const LEAST = 160;

export function fitToWindow(pane: HTMLElement, above: HTMLElement): () => void {
  let frame = 0;
  const fit = () => {
    frame = 0;
    // Hidden (the fault rules tab): nothing to measure.
    if (pane.offsetParent === null) return;
    if (isNarrow()) return void pane.style.removeProperty('max-height');
    const top = Math.max(pane.getBoundingClientRect().top, MARGIN);
    pane.style.maxHeight = `${Math.max(LEAST, window.innerHeight - top - MARGIN)}px`;
  };
  const soon = () => {
    if (!frame) frame = requestAnimationFrame(fit);
  };
  window.addEventListener('scroll', soon, { passive: true });
  window.addEventListener('resize', soon);
  new ResizeObserver(soon).observe(above);
  soon();
  return soon;
}
