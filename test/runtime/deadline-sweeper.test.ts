import { describe, expect, it } from 'vitest';
import { createDeadlineSweeper, type Deadline } from '../../src/runtime/deadline-sweeper.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deadline(inMs: number, onExpire: () => void = () => {}): Deadline & { expired: number } {
  return {
    at: performance.now() + inMs,
    watched: false,
    expired: 0,
    expire() {
      this.expired++;
      onExpire();
    },
  };
}

describe('createDeadlineSweeper', () => {
  it('expires a due deadline once, and neither one unwatched nor one not yet due', async () => {
    const sweeper = createDeadlineSweeper(5);
    const due = deadline(10);
    const unwatched = deadline(10);
    const later = deadline(60_000);
    for (const d of [due, unwatched, later]) sweeper.watch(d);
    sweeper.unwatch(unwatched);
    await wait(60);
    expect([due.expired, unwatched.expired, later.expired]).toEqual([1, 0, 0]);
    expect(due.watched).toBe(false);
    sweeper.unwatch(later);
  });

  it('keeps the live one through thousands that come and go between two sweeps', async () => {
    const sweeper = createDeadlineSweeper(5);
    const live = deadline(20);
    sweeper.watch(live);
    const gone = Array.from({ length: 10_000 }, () => deadline(0));
    for (const d of gone) {
      sweeper.watch(d);
      sweeper.unwatch(d);
    }
    await wait(60);
    expect(live.expired).toBe(1);
    expect(gone.some((d) => d.expired > 0)).toBe(false);
  });

  it('watching twice or unwatching twice changes nothing', async () => {
    const sweeper = createDeadlineSweeper(5);
    const d = deadline(5);
    sweeper.watch(d);
    sweeper.watch(d);
    await wait(40);
    expect(d.expired).toBe(1);
    sweeper.unwatch(d);
    sweeper.unwatch(d);
    // The timer stopped with the last deadline; a new watch starts it again.
    const next = deadline(5);
    sweeper.watch(next);
    await wait(40);
    expect(next.expired).toBe(1);
  });

  it('a deadline unwatched twice, or watched again after an unwatch, counts once: the others still expire', async () => {
    const sweeper = createDeadlineSweeper(5);
    const other = deadline(30);
    const twice = deadline(5);
    sweeper.watch(other);
    sweeper.watch(twice);
    sweeper.unwatch(twice);
    sweeper.unwatch(twice);
    sweeper.watch(twice); // held twice now, until the sweep
    await wait(80);
    expect([twice.expired, other.expired]).toEqual([1, 1]);
  });

  it('an expire() that throws does not keep the others from expiring', async () => {
    const sweeper = createDeadlineSweeper(5);
    const thrown: unknown[] = [];
    const onUncaught = (error: unknown) => thrown.push(error);
    process.prependListener('uncaughtException', onUncaught);
    try {
      const failing = deadline(1, () => {
        throw new Error('expire failed');
      });
      const after = deadline(1);
      sweeper.watch(failing);
      sweeper.watch(after);
      await wait(60);
      expect([failing.expired, after.expired]).toEqual([1, 1]);
      expect(thrown).toHaveLength(1);
    } finally {
      process.removeListener('uncaughtException', onUncaught);
    }
  });

  it('a deadline watched from inside expire() is swept later, not lost', async () => {
    const sweeper = createDeadlineSweeper(5);
    const second = deadline(15);
    const first = deadline(1, () => sweeper.watch(second));
    sweeper.watch(first);
    await wait(80);
    expect([first.expired, second.expired]).toEqual([1, 1]);
  });
});
