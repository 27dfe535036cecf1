/** A counting semaphore for attempts in flight, whose waiters can be cancelled by a signal. */

export interface Slot {
  release(): void;
}

export interface Slots {
  /** Resolves with a slot, or null when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<Slot | null>;
}

export function createSlots(size: number): Slots {
  let free = size;
  const waiting: Array<(slot: Slot | null) => void> = [];
  const makeSlot = (): Slot => {
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        const next = waiting.shift();
        if (next) next(makeSlot());
        else free++;
      },
    };
  };
  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.resolve(null);
      if (free > 0) {
        free--;
        return Promise.resolve(makeSlot());
      }
      return new Promise((resolve) => {
        const waiter = (slot: Slot | null): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        };
        const onAbort = (): void => {
          const i = waiting.indexOf(waiter);
          if (i >= 0) waiting.splice(i, 1);
          resolve(null);
        };
        waiting.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
