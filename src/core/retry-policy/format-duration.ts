/** Human durations for the schedule and the send timeline. */

/**
 * Seconds as a short human duration: "48 s", "1 min 12 s", "1 h 25 min", "2 d 3 h".
 * Under a minute keeps one decimal when needed; from an hour on, seconds are rounded away.
 * Negative or non-finite input yields "0 s".
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0 s';
  if (seconds < 60) {
    const rounded = Math.round(seconds * 10) / 10;
    return rounded < 60 ? `${rounded} s` : '1 min';
  }
  if (seconds < 3600) {
    const total = Math.round(seconds);
    const m = Math.floor(total / 60);
    const s = total % 60;
    if (m === 60) return '1 h';
    return s === 0 ? `${m} min` : `${m} min ${s} s`;
  }
  const totalMinutes = Math.round(seconds / 60);
  if (totalMinutes < 1440) {
    const h = Math.floor(totalMinutes / 60);
    const m = totalMinutes % 60;
    return m === 0 ? `${h} h` : `${h} h ${m} min`;
  }
  // From a day on, whole hours are precise enough.
  const totalHours = Math.round(seconds / 3600);
  const d = Math.floor(totalHours / 24);
  const h = totalHours % 24;
  const parts = [`${d} d`];
  if (h > 0) parts.push(`${h} h`);
  return parts.join(' ');
}

/** Milliseconds for short real waits: "62 ms", "1.5 s", else formatDuration. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0 ms';
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  return formatDuration(ms / 1000);
}
