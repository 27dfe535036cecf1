/** `events replay --status`: a delivery's relay status over its jobs (one per target) and its tries. */
import { describe, expect, it } from 'vitest';
import { parseSelection, selectDeliveries } from '../../src/commands/events-replay-selection.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';

const APP = 'http://127.0.0.1:3000/hooks';
const AUDIT = 'http://127.0.0.1:3001/audit';

describe('events replay --status with several targets', () => {
  it('dead: any of its jobs is dead; failed and handed-on: by the tries of every target', async () => {
    const store = createMemoryStore({ outbox: { to: APP, routes: [{ glob: '*', urls: [AUDIT], also: true }] } });
    const tried = async (id: string, tries: Array<[string, number, 'done' | 'dead']>) => {
      const d = makeDelivery({ id, receivedAt: 1000 });
      const { deliverySeq } = await store.accept(d, attemptFor(d));
      for (const [target, status, state] of tries) {
        await store.recordRelay({ deliverySeq, startedAt: 1, finishedAt: 2, status, error: null, replay: false, target, try: 1, next: { state } });
      }
    };
    await tried('one-dead', [[APP, 204, 'done'], [AUDIT, 500, 'dead']]);
    await tried('both-done', [[APP, 204, 'done'], [AUDIT, 202, 'done']]);
    await tried('untried', []);
    const select = async (status: string) => {
      const parsed = parseSelection({ status }, Date.now());
      if (!parsed.ok) throw new Error(parsed.problems.join('; '));
      return (await selectDeliveries(store, parsed.value)).map((item) => item.id);
    };
    expect(await select('dead')).toEqual(['one-dead']);
    expect(await select('failed')).toEqual(['one-dead']);
    expect(await select('handed-on')).toEqual(['one-dead', 'both-done']);
    expect(await select('all')).toEqual(['one-dead', 'both-done', 'untried']);
  });
});
