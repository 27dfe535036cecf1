/** The human report of a check: pure text, for the terminal and CI logs (issue 7). */
import { escapeForReading } from '../printable-text.js';
import { isoTime, policySeconds, seconds } from './numbers.js';
import type { CheckOptions } from './options.js';
import { checkExitCode } from './summary.js';
import type { DeliveryVerdict, Finding, RuleVerdict, RunVerdict, TimelineEntry } from './types.js';

export interface ReportOptions {
  /** Prints the judging settings as a header. */
  options?: CheckOptions;
  /** Prints every finding, not only the failing ones. */
  verbose?: boolean;
}

/** Escapes anything from recorded headers that could move the cursor or reorder text (core/printable-text.ts), and cuts very long values. */
export const safeText = (value: unknown, max = 2000): string => escapeForReading(String(value), max);

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));

function answerText(a: TimelineEntry): string {
  const head = a.status === null ? 'no response' : String(a.status);
  const parts = [head];
  if (a.retryAfter !== null) parts.push(`Retry-After: ${safeText(a.retryAfter, 40)}`);
  if (a.hops > 0) parts.push(`after ${a.hops} redirect${a.hops === 1 ? '' : 's'}`);
  if (a.reason !== null) parts.push(`(${safeText(a.reason, 60)})`);
  return parts.join(' ');
}

function timelineLines(timeline: readonly TimelineEntry[]): string[] {
  const rows = timeline.map((a) => [
    String(a.position),
    a.attemptHeader === null ? '-' : String(a.attemptHeader),
    safeText(isoTime(a.receivedAt), 40),
    a.gapMs === null ? '—' : seconds(a.gapMs),
    seconds(a.durationMs),
    a.signatureTimestamp === null ? '-' : String(a.signatureTimestamp),
    answerText(a),
    a.answerClass,
  ]);
  const head = ['#', 'hdr', 'arrived', 'gap', 'took', 'sig t', 'answer', 'class'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => `    ${r.map((cell, i) => (i === r.length - 1 ? cell : pad(cell, widths[i]!))).join('  ')}`.trimEnd());
}

const STATUS_LABEL = { pass: 'pass', fail: 'FAIL', 'n/a': 'n/a ' } as const;

function findingLine(f: Finding): string {
  const where = f.attempt > 0 ? `attempt ${f.attempt}: ` : '';
  return `${f.ok ? 'ok  ' : 'FAIL'}  ${where}expected ${safeText(f.expected)}; observed ${safeText(f.observed)}`;
}

function ruleLines(rule: RuleVerdict<string>, verbose: boolean): string[] {
  const lines = [`  ${STATUS_LABEL[rule.status]}  ${pad(rule.rule, 20)}  ${safeText(rule.message)}`];
  // A rule's message already spells out a single failing finding; list them when there are several.
  const failing = rule.findings.filter((f) => !f.ok);
  const shown = verbose ? rule.findings : failing.length > 1 ? failing : [];
  for (const f of shown) lines.push(`          ${findingLine(f)}`);
  if (rule.status === 'fail' || verbose) lines.push(`          expected: ${safeText(rule.expected)} · observed: ${safeText(rule.observed)}`);
  return lines;
}

function deliveryLines(d: DeliveryVerdict, verbose: boolean): string[] {
  const others = d.otherDeliveryIds.length > 0 ? `  (also sent as ${d.otherDeliveryIds.map((id) => safeText(id, 80)).join(', ')})` : '';
  return [
    `delivery ${safeText(d.deliveryId ?? '(no id)', 120)}  ${safeText(d.trigger ?? '(no trigger)', 80)}  ${d.state}  ${d.status === 'pass' ? 'PASS' : 'FAIL'}${others}${d.timeScaleMark === undefined ? '' : `  (time scale ${d.timeScaleMark}, as its sender marked it)`}`,
    ...(d.unseenAttempts ? [`  ${d.unseenAttempts === 1 ? 'attempt 1 was' : `attempts 1–${d.unseenAttempts} were`} not seen here (the receiver was down, or they went elsewhere): judged from attempt ${d.unseenAttempts + 1}`] : []),
    ...timelineLines(d.timeline),
    ...d.rules.flatMap((r) => ruleLines(r, verbose)),
  ];
}

function headerLines(o: CheckOptions): string[] {
  const p = o.policy;
  const policy = p.enabled
    ? `${p.backoff} backoff, ${p.maxAttempts} attempts, initial ${policySeconds(p.initialDelaySeconds)}, max ${policySeconds(p.maxDelaySeconds)}, retryOn ${p.retryOn.join(', ') || '(none)'}`
    : 'retries off (enabled false): one attempt per delivery';
  return [
    'hookrelay check',
    `  policy    ${policy}`,
    `  failures  autoDisableAfter ${o.failureHandling.autoDisableAfter}, disableOnGone ${o.failureHandling.disableOnGone}`,
    `  judging   time scale ${o.timeScale}, tolerance ${o.toleranceSeconds} s, attempt timeout ${o.attemptTimeoutSeconds} s, slack −${o.slack.earlyMs}/+${o.slack.lateMs} ms`,
    '',
  ];
}

/**
 * The report: an optional settings header; per delivery its timeline and each rule's verdict (with
 * the failing findings' expected vs observed numbers); the suspension verdict; a summary line; and
 * the result with its exit code. Every recorded value is escaped (no terminal control).
 */
export function formatReport(verdict: RunVerdict, report: ReportOptions = {}): string {
  const verbose = report.verbose ?? false;
  const lines: string[] = report.options ? headerLines(report.options) : [];
  if (verdict.deliveries.length === 0) lines.push('no deliveries to judge', '');
  for (const d of verdict.deliveries) lines.push(...deliveryLines(d, verbose), '');
  lines.push('run', ...ruleLines(verdict.suspension, verbose), '');
  const s = verdict.summary;
  const totals = Object.values(s.rules).reduce((t, c) => ({ pass: t.pass + c.pass, fail: t.fail + c.fail, na: t.na + c['n/a'] }), { pass: 0, fail: 0, na: 0 });
  const failedRules = Object.entries(s.rules).filter(([, c]) => c.fail > 0).map(([name, c]) => `${name} ×${c.fail}`);
  lines.push(
    `summary: ${s.deliveries} deliver${s.deliveries === 1 ? 'y' : 'ies'}: ${s.passed} passed, ${s.failed} failed, ${s.retrying} still retrying; rules: ${totals.pass} pass, ${totals.fail} fail, ${totals.na} n/a${failedRules.length > 0 ? ` (failed: ${failedRules.join(', ')})` : ''}`,
  );
  const code = checkExitCode(verdict);
  lines.push(code === 0 ? 'result: PASS (exit 0)' : 'result: FAIL (exit 1)');
  return `${lines.join('\n')}\n`;
}
