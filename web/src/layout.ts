/** Below this width the detail goes under the list (styles.css holds the same media query). */
export const NARROW_LAYOUT = '(max-width: 1000px)';

export const isNarrow = (): boolean => window.matchMedia(NARROW_LAYOUT).matches;
