/**
 * The lag and backlog series (issue 39) read out of the console's own `/metrics` text (Prometheus
 * exposition format 0.0.4): per relay target what is owed and how old the oldest is, per bridge
 * subscriber its lag in seconds. Pure. Label values are whatever the server sent: the caller shows
 * them as text only.
 */

export interface TargetLag {
  /** The target as /metrics labels it: its URL without credentials, or `unknown`. */
  target: string;
  pending: number;
  held: number;
  /** Age in seconds of the oldest delivery owed to it (0 when none is). */
  oldestSeconds: number;
  retrying: number;
  dead: number;
}

export interface LagSnapshot {
  /** The node serves the lag and backlog series (an older or differently wired node does not). */
  served: boolean;
  /** The most owed first, then the oldest. */
  targets: TargetLag[];
  /** Bridge subscribers (public side): age in seconds of the oldest delivery each has not acknowledged. */
  subscriberSeconds: Map<string, number>;
}

const WANTED = new Set([
  'hookrelay_relay_owed_jobs',
  'hookrelay_relay_oldest_owed_age_seconds',
  'hookrelay_relay_retrying_jobs',
  'hookrelay_relay_dead_jobs',
  'hookrelay_bridge_subscriber_lag_seconds',
]);

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** One sample line (`name{a="b"} 1`), or null when it is not one or its name is not in `wanted`. */
export function parseSampleLine(line: string, wanted: ReadonlySet<string> = WANTED): Sample | null {
  const name = NAME.exec(line)?.[0];
  if (!name || !wanted.has(name)) return null;
  let at = name.length;
  const labels: Record<string, string> = Object.create(null);
  if (line[at] === '{') {
    at++;
    while (line[at] !== '}') {
      const labelName = LABEL_NAME.exec(line.slice(at))?.[0];
      if (!labelName || line[at + labelName.length] !== '=' || line[at + labelName.length + 1] !== '"') return null;
      at += labelName.length + 2;
      let value = '';
      for (;;) {
        const c = line[at++];
        if (c === undefined) return null;
        if (c === '"') break;
        if (c === '\\') {
          const next = line[at++];
          value += next === 'n' ? '\n' : (next ?? '');
        } else value += c;
      }
      labels[labelName] = value;
      if (line[at] === ',') at++;
      else if (line[at] !== '}') return null;
    }
    at++;
  }
  const value = Number(line.slice(at).trim().split(/\s+/, 1)[0]);
  if (!Number.isFinite(value)) return null;
  return { name, labels, value };
}

/** The lag and backlog of one scrape of `/metrics`. */
export function lagFromMetrics(text: string): LagSnapshot {
  const served = text.includes('# TYPE hookrelay_relay_owed_jobs ');
  const byTarget = new Map<string, TargetLag>();
  const subscriberSeconds = new Map<string, number>();
  const target = (name: string) => {
    const entry = byTarget.get(name) ?? { target: name, pending: 0, held: 0, oldestSeconds: 0, retrying: 0, dead: 0 };
    byTarget.set(name, entry);
    return entry;
  };
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseSampleLine(line);
    if (!sample) continue;
    const { name, labels, value } = sample;
    if (name === 'hookrelay_bridge_subscriber_lag_seconds') {
      if (labels.subscriber !== undefined) subscriberSeconds.set(labels.subscriber, value);
      continue;
    }
    if (labels.target === undefined) continue;
    const entry = target(labels.target);
    if (name === 'hookrelay_relay_owed_jobs') {
      if (labels.state === 'pending') entry.pending = value;
      else if (labels.state === 'held') entry.held = value;
    } else if (name === 'hookrelay_relay_oldest_owed_age_seconds') entry.oldestSeconds = value;
    else if (name === 'hookrelay_relay_retrying_jobs') entry.retrying = value;
    else if (name === 'hookrelay_relay_dead_jobs') entry.dead = value;
  }
  const targets = [...byTarget.values()].sort(
    (a, b) => b.pending + b.held - (a.pending + a.held) || b.oldestSeconds - a.oldestSeconds || b.dead - a.dead || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
  );
  return { served, targets, subscriberSeconds };
}

/** An age in seconds for the header: `0 s`, `42 s`, `8m 05s`, `2h 03m`, `3d 4h`. */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}
