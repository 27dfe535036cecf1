/** Time for the sender: injectable so tests and simulations never wait on real timers. */

export interface SenderClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts (a suspended webhook wakes waiting retries). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// setTimeout fires at once beyond 2^31-1 ms; long waits are slept in pieces.
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: SenderClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepFor(ms, signal),
};

async function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  let remaining = Number.isFinite(ms) ? Math.max(0, ms) : 0;
  do {
    const piece = Math.min(remaining, MAX_TIMER_MS);
    remaining -= piece;
    await sleepOnce(piece, signal);
  } while (remaining > 0 && !signal?.aborted);
}

function sleepOnce(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
