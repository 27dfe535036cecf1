/**
 * Runs tasks one at a time per key, in arrival order; different keys run side by side.
 * Sync passthrough takes a turn per delivery id, so copies that arrive together cannot both see
 * "not stored yet" and both reach the app.
 */
export interface PerKeyTurns {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Keys with a task running or waiting (for tests: the map must not grow). */
  size(): number;
}

export function createPerKeyTurns(): PerKeyTurns {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(key, task) {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(
        () => {},
        () => {},
      );
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
    size: () => tails.size,
  };
}
