/** `/readyz`: a real write through the store's write path (one probe shared while it runs), and the relay worker's state. */
import type { Readiness } from '../ingest/build-receiver.js';
import type { Housekeeping } from '../store/store.js';

export function createReadiness(store: Pick<Housekeeping, 'probe'>, relay: () => 'alive' | 'stopped' | 'off'): () => Promise<Readiness> {
  let probing: Promise<string | null> | null = null;
  const probeStore = (): Promise<string | null> =>
    (probing ??= store
      .probe()
      .then(() => null)
      .catch((err: unknown) => (err as Error).message)
      .finally(() => (probing = null)));
  return async () => {
    const storeProblem = await probeStore();
    const relayState = relay();
    const reasons = [...(storeProblem ? [`the store cannot write: ${storeProblem}`] : []), ...(relayState === 'stopped' ? ['the relay worker has stopped'] : [])];
    return { ready: reasons.length === 0, store: storeProblem ? 'unavailable' : 'writable', relay: relayState, ...(reasons.length ? { reason: reasons.join('; ') } : {}) };
  };
}
