/** Times, gaps and sizes for display. Pure. */

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Local wall-clock time with milliseconds, e.g. `14:03:07.512`. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Local date and time, e.g. `2026-11-21 14:03:07`. */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${formatTime(ms).slice(0, 8)}`;
}

/** A moment in a narrow column: the time of day when it is on `now`'s day, else the date and time. */
export function formatMoment(ms: number, now: number): string {
  return new Date(ms).toDateString() === new Date(now).toDateString() ? formatTime(ms).slice(0, 8) : formatDateTime(ms);
}

/** A duration: `<1 ms`, `120 ms`, `1.204 s`, `42.0 s`, `5m 03s`, `1h 25m` ("0.000 s" read as a bug). */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '−' : '';
  const abs = Math.abs(ms);
  if (abs < 0.5) return '<1 ms';
  if (Math.round(abs) < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 10_000) return `${sign}${(abs / 1000).toFixed(3)} s`;
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(1)} s`;
  const s = Math.round(abs / 1000);
  if (s < 3600) return `${sign}${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${sign}${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Signature skew in words: how far the signature's `t` was from the arrival. */
export function formatSkew(skewSeconds: number): string {
  if (Math.abs(skewSeconds) < 0.0005) return 'signed at arrival';
  const text = formatDuration(Math.abs(skewSeconds) * 1000);
  return skewSeconds > 0 ? `signed ${text} before arrival` : `signed ${text} after arrival (sender clock ahead)`;
}
