/** Flag plumbing shared by commands: repeatable flags, typed options, problem reports, the forward lines of listen's and connect's banners. */
import type { Command } from 'commander';
import { optionOfValues } from './completion-tree.js';
import type { ForwardConfig } from '../config/listen-config.js';
import type { OptionSpec } from '../config/option-specs.js';
import { DEFAULT_PACE, describePace } from '../core/pacing.js';
import type { Route } from '../core/routes.js';
import { displayUrl } from '../core/url-secrets.js';
import { printable } from '../reporter/printable.js';

export const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Only the options the user typed: commander defaults are not used, so precedence stays ours. */
export function typedOptions(command: Command): Record<string, unknown> {
  const opts = command.opts();
  const typed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(opts)) {
    if (command.getOptionValueSource(key) === 'cli') typed[key] = value;
  }
  return typed;
}

export function reportProblems(problems: readonly string[], stream: NodeJS.WritableStream = process.stderr): void {
  stream.write(`hookrelay: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} with the settings:\n`);
  for (const problem of problems) stream.write(`  - ${problem}\n`);
}

/** One commander option per settings row, its env variable and default in the help. */
export function addSpecOptions(command: Command, specs: readonly OptionSpec[]): void {
  for (const spec of specs) {
    const env = `[env ${spec.env}]`;
    // A --no-X flag's default is "X on": saying "(default: true)" beside "--no-X" reads backwards.
    const def = spec.default === undefined || spec.flag.startsWith('--no-') || (Array.isArray(spec.default) && spec.default.length === 0) ? '' : ` (default: ${String(spec.default)})`;
    if (spec.kind.type === 'bool') command.option(spec.flag, `${spec.description}${def} ${env}`);
    else if (spec.kind.type === 'strings') command.option(`${spec.flag} <value>`, `${spec.description} ${env}`, collect);
    else if (spec.kind.type === 'enum') command.addOption(optionOfValues(`${spec.flag} <value>`, `${spec.description}${def} ${env}`, spec.kind.values));
    else command.option(`${spec.flag} <value>`, `${spec.description}${def} ${env}`);
  }
}

/** The routes in the order they are tried, and how https targets are trusted; shared with `connect`. */
export function forwardDetailLines(forward: ForwardConfig | null | undefined): string[] {
  if (!forward) return [];
  const all = forward.routes ?? [];
  const routes = all.filter((r) => r.also !== true);
  const also = all.filter((r) => r.also === true);
  const width = Math.max(0, ...all.map((r) => r.glob.length));
  const describe = (r: Route) => `${r.glob.padEnd(width)}${r.where ? ` where ${printable(r.where.map((c) => c.text).join(' and '), 200)}` : ''}  → ${r.urls.map((url) => printable(displayUrl(url), 200)).join(', ')}`;
  const lines = routes.map((r, i) => `${i === 0 ? '  routes     ' : '             '}${describe(r)}`);
  if (routes.length > 0) lines.push(`             tried in order: the first matching route (glob and filter) wins, the rest go to ${printable(displayUrl(forward.to), 200)}`);
  also.forEach((r, i) => lines.push(`${i === 0 ? '  also       ' : '             '}${describe(r)}`));
  if (also.length > 0) lines.push('             every --also that matches hands the delivery to its targets too: one job per target, each with its own retries');
  if (forward.pacing && forward.mode === 'async') {
    const { fallback, byTarget } = forward.pacing;
    const paced = [...byTarget].map(([target, pace]) => `${printable(displayUrl(target), 200)} ${describePace(pace)}`);
    if (describePace(fallback) !== describePace(DEFAULT_PACE)) paced.push(`${byTarget.size > 0 ? 'every other target' : 'every target'} ${describePace(fallback)}`);
    paced.forEach((line, i) => lines.push(`${i === 0 ? '  pace       ' : '             '}${line}`));
  }
  if (forward.trust?.insecure) lines.push('  trust      --forward-insecure: any certificate of an https forward or route target is accepted');
  else if (forward.trust?.caFile) lines.push(`  trust      https forward and route targets may use certificates of ${printable(forward.trust.caFile, 200)} (--forward-ca)`);
  if (forward.trust?.proxy) lines.push(`  proxy      hand-offs go through ${printable(displayUrl(forward.trust.proxy.url), 200)} (${forward.trust.proxy.from})`);
  return lines;
}

