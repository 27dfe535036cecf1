/** Closes what was started, last first; one close at most. Every step runs even when one before it fails; the first failure is rethrown at the end. */
export function closer() {
  const steps: Array<() => unknown> = [];
  let closing: Promise<void> | null = null;
  return {
    add(step: () => unknown) {
      steps.push(step);
    },
    close(): Promise<void> {
      closing ??= (async () => {
        const failures: unknown[] = [];
        for (const step of steps.splice(0).reverse()) {
          try {
            await step();
          } catch (err) {
            failures.push(err);
          }
        }
        if (failures.length > 0) throw failures[0];
      })();
      return closing;
    },
  };
}
