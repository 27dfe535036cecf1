/**
 * One timer for many deadlines: while any is watched, every `everyMs` it expires those whose
 * time has come. A timer per request (setTimeout, AbortSignal.timeout) was a measurable share of
 * both the receive path and a relay hand-off. Deadlines fire up to `everyMs` late.
 *
 * Deadlines are held in an array, not a Set: with a Set of a fresh object per request, a POST to
 * the app cost ~7 µs more in a loop (bench/notes.md, session 10). An unwatched deadline is only
 * marked; the sweep, or a watch once marked ones outnumber the live, drops it. A deadline
 * watched again after an unwatch may be held twice until then: its mark makes it count once.
 */
export interface Deadline {
  /** performance.now() time at which it expires. */
  at: number;
  expire(): void;
  /** The sweeper's mark: true from watch() until unwatch() or expiry. Declare it `false`. */
  watched: boolean;
}

export interface DeadlineSweeper {
  watch(deadline: Deadline): void;
  /** Idempotent; the timer stops with the last deadline. */
  unwatch(deadline: Deadline): void;
}

export function createDeadlineSweeper(everyMs: number): DeadlineSweeper {
  let held: Deadline[] = [];
  let live = 0;
  let timer: NodeJS.Timeout | undefined;

  /** Keeps only the watched; expires (after unmarking) those whose time has come when `now` is given. */
  const compact = (now: number | null) => {
    const kept: Deadline[] = [];
    const due: Deadline[] = [];
    for (const deadline of held) {
      if (!deadline.watched) continue;
      if (now !== null && deadline.at <= now) {
        // Unmarked here, so a second copy of it (watched, unwatched, watched again) is skipped.
        deadline.watched = false;
        live--;
        due.push(deadline);
      } else kept.push(deadline);
    }
    held = kept;
    stopWhenIdle();
    // After the bookkeeping: an expire() may watch or unwatch others. One that throws does not
    // keep the rest from expiring; the first error is thrown after them.
    let failure: { error: unknown } | null = null;
    for (const deadline of due) {
      try {
        deadline.expire();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  };

  const stopWhenIdle = () => {
    if (live > 0 || !timer) return;
    clearInterval(timer);
    timer = undefined;
    held = [];
  };

  return {
    watch(deadline) {
      if (deadline.watched) return;
      deadline.watched = true;
      live++;
      held.push(deadline);
      if (held.length > 2 * live + 64) compact(null);
      if (!timer) {
        timer = setInterval(() => compact(performance.now()), everyMs);
        // What it waits on (a socket, the writer's port) keeps the process alive, not the timer.
        timer.unref();
      }
    },
    unwatch(deadline) {
      if (!deadline.watched) return;
      deadline.watched = false;
      live--;
      stopWhenIdle();
    },
  };
}
