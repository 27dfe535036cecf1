import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchLiveness } from '../../src/runtime/liveness.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function watched(pingMs: number, deadMs: number) {
  const events: string[] = [];
  const start = Date.now();
  const liveness = watchLiveness({
    pingMs,
    deadMs,
    isOpen: () => true,
    ping: () => events.push(`ping ${Date.now() - start}`),
    onSilent: () => events.push(`silent ${Date.now() - start}`),
  });
  return { events, liveness };
}

describe('watchLiveness (both ends of the bridge)', () => {
  it('finds a silent peer at the deadline itself, not at the next ping after it, and says so once', () => {
    const { events } = watched(2000, 3000);
    vi.advanceTimersByTime(10_000);
    expect(events).toEqual(['ping 2000', 'silent 3000']);
  });

  it('moves the deadline with every sign of life, and stops when told', () => {
    const { events, liveness } = watched(2000, 3000);
    vi.advanceTimersByTime(2500);
    liveness.heard();
    vi.advanceTimersByTime(2900);
    expect(events).toEqual(['ping 2000', 'ping 4000']);
    vi.advanceTimersByTime(200);
    expect(events).toEqual(['ping 2000', 'ping 4000', 'silent 5500']);
    const second = watched(2000, 3000);
    second.liveness.stop();
    vi.advanceTimersByTime(10_000);
    expect(second.events).toEqual([]);
  });
});
