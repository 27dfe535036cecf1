/**
 * One timer for many deadlines: while any is watched, every `everyMs` it expires those whose
 * time has come. A timer per request (setTimeout, AbortSignal.timeout) was a measurable share of
 * both the receive path and a relay hand-off. Deadlines fire up to `everyMs` late.
 */
export interface Deadline {
  /** performance.now() time at which it expires. */
  at: number;
  expire(): void;
}

export interface DeadlineSweeper {
  watch(deadline: Deadline): void;
  /** Idempotent; the timer stops with the last deadline. */
  unwatch(deadline: Deadline): void;
}

export function createDeadlineSweeper(everyMs: number): DeadlineSweeper {
  const watched = new Set<Deadline>();
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const now = performance.now();
    for (const deadline of watched) if (deadline.at <= now) deadline.expire();
  };
  return {
    watch(deadline) {
      watched.add(deadline);
      if (!timer) {
        timer = setInterval(sweep, everyMs);
        // What it waits on (a socket, the writer's port) keeps the process alive, not the timer.
        timer.unref();
      }
    },
    unwatch(deadline) {
      watched.delete(deadline);
      if (watched.size === 0 && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    },
  };
}
