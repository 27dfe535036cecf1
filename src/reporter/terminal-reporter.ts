/** The terminal subscriber: one readable line (or one JSON line) per attempt, and notices. */
import type { EventHub } from '../runtime/event-hub.js';
import type { AttemptRecord } from '../store/store.js';
import type { Logger } from 'pino';
import { targetRefusalWords } from '../handoff/sender-answer.js';
import { batchedWriter } from './batched-writer.js';
import { createJsonLogger } from './json-logger.js';
import { printable, RELAY_ERROR_CHARS } from './printable.js';

export type LogFormat = 'pretty' | 'json' | 'silent';

export interface ReporterOptions {
  format: LogFormat;
  out: NodeJS.WritableStream;
  color: boolean;
  /** Replaces configured secrets in JSON lines (by their hints). */
  redact?: (text: string) => string;
}

export interface TerminalReporter {
  flush(): void;
  detach(): void;
  /** The pino logger of `--log-format json` (null otherwise): for lines of the command itself. */
  logger: Logger | null;
}

const paint = (on: boolean, code: number, text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);

function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

export function formatAttemptLine(attempt: AttemptRecord, color: boolean, skipVerify: boolean): string {
  const status = attempt.status === null ? '---' : String(attempt.status);
  const outcomeColor = attempt.outcome === 'accepted' ? 32 : attempt.outcome === 'duplicate' ? 36 : attempt.outcome === 'faulted' ? 35 : 31;
  // --forward-mode sync: the app refused it and the sender was told, which "rejected CODE" hides.
  const byApp = attempt.outcome === 'rejected' && attempt.reason ? targetRefusalWords(attempt.reason, attempt.status) : null;
  const parts = [
    clockTime(attempt.receivedAt),
    paint(color, outcomeColor, `${status} ${(byApp?.label ?? attempt.outcome).padEnd(11)}`),
    printable(attempt.trigger ?? '(no trigger)', 48),
    printable(attempt.deliveryId ?? '(no delivery id)', 64),
    `attempt ${attempt.attemptHeader ?? '?'}`,
  ];
  if (byApp) parts.push(paint(color, 33, byApp.words));
  else if (attempt.reason) parts.push(paint(color, 33, printable(attempt.reason, 80)));
  if (attempt.retryAfter) parts.push(`retry-after=${printable(attempt.retryAfter, 40)}`);
  if (skipVerify && (attempt.outcome === 'accepted' || attempt.outcome === 'duplicate')) parts.push(paint(color, 31, 'UNVERIFIED (--skip-verify)'));
  return parts.join('  ');
}

/** A hint printed under a refusal is not repeated under the next ones for this long: a storm of the same refusal stays one line each. */
export const HINT_REPEAT_MS = 60_000;

/**
 * The lines under a refused attempt: the receiver's hints on what to do (rejection-hints.ts), each
 * once per HINT_REPEAT_MS. `seen` maps a hint to when it was last printed.
 */
export function hintLines(attempt: AttemptRecord, seen: Map<string, number>, nowMs: number): string[] {
  if (attempt.outcome !== 'rejected' || !attempt.hints) return [];
  const lines: string[] = [];
  for (const hint of attempt.hints) {
    const last = seen.get(hint);
    if (last !== undefined && nowMs - last < HINT_REPEAT_MS) continue;
    if (seen.size >= 64) seen.clear();
    seen.set(hint, nowMs);
    lines.push(`    ↳ ${printable(hint, 600)}`);
  }
  return lines;
}

export function attachTerminalReporter(hub: EventHub, options: ReporterOptions): TerminalReporter {
  if (options.format === 'silent') return { flush() {}, detach() {}, logger: null };
  if (options.format === 'json') return createJsonLogger(hub, { out: options.out, redact: options.redact });
  const sink = batchedWriter(options.out);
  const offs: Array<() => void> = [];
  {
    const hintsSeen = new Map<string, number>();
    offs.push(hub.on('attempt', ({ attempt, skipVerify, remote }) => {
      if (remote) return;
      sink.write(formatAttemptLine(attempt, options.color, skipVerify));
      for (const line of hintLines(attempt, hintsSeen, Date.now())) sink.write(line);
    }));
    offs.push(hub.on('notice', ({ level, message }) =>
      sink.write(level === 'info' ? message : paint(options.color, level === 'warn' ? 33 : 31, `${level}: ${message}`)),
    ));
    offs.push(hub.on('relay', (r) =>
      sink.write(
        `${clockTime(Date.now())}  ${paint(options.color, r.ok ? 32 : 31, `→ ${r.status ?? '---'} ${r.ok ? 'forwarded' : 'forward failed'}`)}  ${printable(r.deliveryId, 64)}  ${r.latencyMs} ms  to ${printable(r.target, 120)}${r.replay ? '  (replay)' : ''}${r.error ? `  ${printable(r.error, RELAY_ERROR_CHARS)}` : ''}${r.nextRetryAt ? `  retry at ${new Date(r.nextRetryAt).toISOString().slice(11, 19)}` : ''}`,
      ),
    ));
    offs.push(hub.on('rules', ({ change }) => sink.write(`fault rules: ${printable(change, 200)}`)));
  }
  return { flush: sink.flush, detach: () => offs.forEach((off) => off()), logger: null };
}
