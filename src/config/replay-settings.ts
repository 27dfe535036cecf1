/** `events replay`: where to send, what to sign with, how long to wait; flag > HOOKRELAY_* > development secret. */
import { parseDuration } from '../core/duration.js';
import { isLoopbackHost } from '../runtime/hosts.js';
import { dataDirOf, readDevSecret } from './data-dir.js';

export interface ReplayFlags {
  to?: string;
  secret?: string;
  timeout: string;
  allowRemote?: boolean;
}

export interface ReplaySettings {
  target: string;
  secret: string;
  timeoutMs: number;
}

export function resolveReplaySettings(flags: ReplayFlags, dbPath: string | null, env: NodeJS.ProcessEnv = process.env): { ok: true; settings: ReplaySettings } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const target = flags.to ?? env.HOOKRELAY_FORWARD_TO;
  if (!target) problems.push('no target: pass --to URL (or set HOOKRELAY_FORWARD_TO)');
  else problems.push(...targetProblems(target, flags.allowRemote ?? false));
  const timeout = parseDuration(flags.timeout, { bare: 'ms', min: 1 });
  const timeoutMs = timeout.ok ? timeout.ms : 0;
  if (!timeout.ok) problems.push(`--timeout: must be milliseconds, or a duration such as 30s, got ${JSON.stringify(flags.timeout)}`);
  const secret = flags.secret ?? env.HOOKRELAY_FORWARD_SECRET ?? env.HOOKRELAY_SECRET?.split(',')[0] ?? (dbPath === null ? undefined : readDevSecret(dataDirOf(dbPath)) ?? undefined);
  if (!secret) problems.push('no secret to sign with: pass --secret (or run `hookrelay listen` once to make a development secret)');
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, settings: { target: target!, secret: secret!, timeoutMs } };
}

/** Like the console's replay: a loopback target unless the user says otherwise. */
function targetProblems(target: string, allowRemote: boolean): string[] {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return [`--to: must be an http or https URL, got ${JSON.stringify(target)}`];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [`--to: must be an http or https URL, got ${JSON.stringify(target)}`];
  if (!allowRemote && !isLoopbackHost(url.hostname)) {
    return [`--to: ${url.host} is not on this machine; replays go to loopback targets unless you pass --allow-remote`];
  }
  return [];
}
