/** Makes hostile text safe for a terminal line (the rule: core/printable-text.ts), 120 characters by default. */
import { escapeForReading } from '../core/printable-text.js';

export const printable = (text: string, max = 120): string => escapeForReading(text, max);

/**
 * How much of a relay try's error a line shows: long enough for the longest hookrelay writes (a TLS
 * failure and how to fix it, post-to-target.ts), short enough to bound one a target could stretch.
 */
export const RELAY_ERROR_CHARS = 260;
