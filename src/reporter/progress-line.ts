/**
 * Progress of a long job on stderr: on a terminal one line redrawn in place (count, percent, rate,
 * time left), at most ten times a second; elsewhere (a pipe, a CI log) a plain line every few
 * seconds. The rate and the time left count only what this run did (a resumed job starts part done).
 * A job that cannot know its total (a stream of whatever matches) shows its count and rate only.
 * One place for every command's long job: bulk replay, db backup and prune, events export and list.
 */
export interface ProgressLine {
  /** `done` of `total` finished; `thisRun` of them by this run. */
  update(done: number, thisRun: number): void;
  /** Ends the line (a terminal's redrawn line gets its newline). */
  end(): void;
}

export interface ProgressOptions {
  label: string;
  /** null: not known beforehand. */
  total: number | null;
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  clock?: () => number;
  /** A plain line at most this often when not a terminal (default 5 s). */
  plainEveryMs?: number;
}

const REDRAW_MS = 100;

export function createProgressLine(options: ProgressOptions): ProgressLine {
  const { label, total, stream } = options;
  const clock = options.clock ?? Date.now;
  const tty = stream.isTTY === true && !process.env.CI;
  const every = tty ? REDRAW_MS : (options.plainEveryMs ?? 5_000);
  const started = clock();
  // On a terminal the first line comes at once; in a log, not before `every` has passed, so a job of a
  // moment writes no line at all.
  let shownAt = tty ? -Infinity : started;
  let drawn = false;
  let last = { done: 0, thisRun: 0 };
  let lastShown: typeof last | null = null;

  const text = ({ done, thisRun }: { done: number; thisRun: number }): string => {
    const seconds = (clock() - started) / 1000;
    // A rate over less than half a second says nothing yet.
    const rate = seconds >= 0.5 ? thisRun / seconds : null;
    const rateText = rate === null ? '' : `${rate.toFixed(rate < 10 ? 1 : 0)}/s`;
    if (total === null) return `${label}: ${done.toLocaleString('en-US')}  ${rateText}`.trimEnd();
    const left = rate ? (total - done) / rate : null;
    const percent = total === 0 ? 100 : Math.min(100, Math.floor((done / total) * 100));
    return `${label}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} (${percent}%)  ${rateText}  ${left === null ? '' : `${clockText(left)} left`}`.trimEnd();
  };

  return {
    update(done, thisRun) {
      last = { done, thisRun };
      const now = clock();
      // Throttled, but for the first time the total is reached (a count past a total read at the start,
      // as a backup of a database that grows, is throttled as any other).
      const reachedNow = total !== null && done >= total && (lastShown === null || lastShown.done < total);
      if (now - shownAt < every && !reachedNow) return;
      shownAt = now;
      if (tty) stream.write(`\r\x1b[2K${text(last)}`);
      else stream.write(`${text(last)}\n`);
      drawn = true;
      lastShown = last;
    },
    end() {
      // The last count always ends a line that was shown: redrawn on a terminal, once more in a log.
      if (!drawn) return;
      if (tty) stream.write(`\r\x1b[2K${text(last)}\n`);
      else if (lastShown !== last) stream.write(`${text(last)}\n`);
    },
  };
}

function clockText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}
