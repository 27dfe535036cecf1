/** per-key-turns.ts: one task at a time per key, in arrival order; keys side by side; the map empties. */
import { describe, expect, it } from 'vitest';
import { createPerKeyTurns } from '../../src/ingest/per-key-turns.js';
import { deferred } from './step-helpers.js';

/** Lets every queued promise callback run (no timers). */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('createPerKeyTurns', () => {
  it('runs the tasks of one key one at a time, in the order they came', async () => {
    const turns = createPerKeyTurns();
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      turns.run('id-1', async () => {
        log.push(`start ${i}`);
        await gate.promise;
        log.push(`end ${i}`);
        return i;
      }),
    );
    await settle();
    expect(log).toEqual(['start 0']);
    // The last one finishing its wait first changes nothing: it has not started.
    gates[2]!.resolve();
    gates[1]!.resolve();
    await settle();
    expect(log).toEqual(['start 0']);
    gates[0]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('runs different keys side by side', async () => {
    const turns = createPerKeyTurns();
    const started: string[] = [];
    const gate = deferred();
    const a = turns.run('a', async () => {
      started.push('a');
      await gate.promise;
      return 'A';
    });
    const b = turns.run('b', async () => {
      started.push('b');
      return 'B';
    });
    // b finishes while a still holds its own key.
    expect(await b).toBe('B');
    expect(started).toEqual(['a', 'b']);
    await settle();
    expect(turns.size()).toBe(1);
    gate.resolve();
    expect(await a).toBe('A');
  });

  it('a failing task rejects its own caller only, and the next task of the key still runs', async () => {
    const turns = createPerKeyTurns();
    const failing = turns.run('k', async () => {
      throw new Error('app down');
    });
    const throwingAtOnce = turns.run('k', () => {
      throw new TypeError('not even a promise');
    });
    const next = turns.run('k', async () => 'ran');
    await expect(failing).rejects.toThrow('app down');
    await expect(throwingAtOnce).rejects.toThrow(TypeError);
    expect(await next).toBe('ran');
  });

  it('the map empties once every task of every key is done, failed ones included', async () => {
    const turns = createPerKeyTurns();
    expect(turns.size()).toBe(0);
    const gate = deferred();
    const runs = [
      turns.run('x', () => gate.promise),
      turns.run('x', async () => {
        throw new Error('no');
      }),
      turns.run('y', () => gate.promise),
    ];
    expect(turns.size()).toBe(2);
    gate.resolve();
    await Promise.allSettled(runs);
    await settle();
    expect(turns.size()).toBe(0);
    // A key used again after it emptied starts a fresh turn.
    expect(await turns.run('x', async () => 7)).toBe(7);
    await settle();
    expect(turns.size()).toBe(0);
  });

  it('keeps the key while a later task is queued behind a finished one', async () => {
    const turns = createPerKeyTurns();
    const gate = deferred();
    const first = turns.run('k', async () => 1);
    const second = turns.run('k', () => gate.promise.then(() => 2));
    await first;
    await settle();
    expect(turns.size()).toBe(1);
    gate.resolve();
    expect(await second).toBe(2);
    await settle();
    expect(turns.size()).toBe(0);
  });
});
