import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/sender/clock.js';

describe('systemClock.sleep', () => {
  it('ends a long sleep as soon as its signal aborts', async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60 * 60 * 1000, controller.signal);
    controller.abort();
    await expect(sleeping).resolves.toBeUndefined();
  });

  it('returns at once for an aborted signal, even beyond the 32-bit timer range', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(systemClock.sleep(2 ** 40, controller.signal)).resolves.toBeUndefined();
  });
});
