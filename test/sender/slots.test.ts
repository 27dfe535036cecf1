import { describe, expect, it } from 'vitest';
import { createSlots } from '../../src/sender/slots.js';

describe('createSlots', () => {
  it('hands out at most `size` slots; a release passes the slot to the next waiter in order', async () => {
    const slots = createSlots(2);
    const a = await slots.acquire();
    const b = await slots.acquire();
    const order: string[] = [];
    const c = slots.acquire().then((s) => (order.push('c'), s));
    const d = slots.acquire().then((s) => (order.push('d'), s));
    await Promise.resolve();
    expect(order).toEqual([]);
    a!.release();
    a!.release(); // a second release is ignored
    const cSlot = await c;
    expect(order).toEqual(['c']);
    b!.release();
    await d;
    expect(order).toEqual(['c', 'd']);
    expect(cSlot).not.toBeNull();
  });

  it('answers waiters with null when their signal aborts', async () => {
    const slots = createSlots(1);
    const held = await slots.acquire();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort();
    expect(await waiting).toBeNull();
    expect(await slots.acquire(controller.signal)).toBeNull();
    held!.release();
    expect(await slots.acquire()).not.toBeNull();
  });
});
