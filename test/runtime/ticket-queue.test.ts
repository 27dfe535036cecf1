import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createTicketQueue, type Ticketed } from '../../src/runtime/ticket-queue.js';

const entry = (ticket: number, at = ticket): Ticketed => ({ ticket, at });

describe('createTicketQueue', () => {
  it('takes entries by ticket, in order or out of it, and each only once', () => {
    const queue = createTicketQueue<Ticketed>();
    for (let t = 1; t <= 5; t++) queue.add(entry(t));
    expect(queue.take(3)?.ticket).toBe(3);
    expect(queue.take(3)).toBeUndefined();
    expect(queue.take(1)?.ticket).toBe(1);
    expect(queue.size).toBe(3);
    expect(queue.values().map((e) => e.ticket)).toEqual([2, 4, 5]);
    expect(queue.take(99)).toBeUndefined();
    expect(queue.take(0)).toBeUndefined();
  });

  it('gives only the oldest entry, and only once it is due', () => {
    const queue = createTicketQueue<Ticketed>();
    queue.add(entry(1, 100));
    queue.add(entry(2, 200));
    expect(queue.takeDue(99)).toBeUndefined();
    expect(queue.takeDue(150)?.ticket).toBe(1);
    expect(queue.takeDue(150)).toBeUndefined();
    expect(queue.takeDue(200)?.ticket).toBe(2);
    expect(queue.takeDue(1e9)).toBeUndefined();
  });

  it('keeps order and every entry while it grows past its first ring, with gaps left by out-of-order takes', () => {
    const queue = createTicketQueue<Ticketed>();
    for (let t = 1; t <= 1000; t++) {
      queue.add(entry(t));
      if (t % 3 === 0) expect(queue.take(t - 1)?.ticket).toBe(t - 1);
    }
    const left = queue.values().map((e) => e.ticket);
    expect(left).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1).filter((t) => t % 3 !== 2));
    expect(queue.size).toBe(left.length);
    expect(queue.takeAll().map((e) => e.ticket)).toEqual(left);
    expect(queue.size).toBe(0);
    expect(queue.values()).toEqual([]);
    queue.add(entry(2000));
    expect(queue.takeDue(2000)?.ticket).toBe(2000);
  });

  it('keeps every entry when it grows while the oldest sits mid-ring', () => {
    const queue = createTicketQueue<Ticketed>();
    for (let t = 1; t <= 50; t++) queue.add(entry(t));
    for (let t = 1; t <= 40; t++) expect(queue.take(t)?.ticket).toBe(t);
    for (let t = 51; t <= 400; t++) queue.add(entry(t));
    expect(queue.values().map((e) => e.ticket)).toEqual(Array.from({ length: 360 }, (_, i) => i + 41));
  });

  it('holds nothing it gave back: taken entries, and those of a ring it outgrew, can be collected', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const queue = createTicketQueue<Ticketed & { payload: number[] }>();
    const refs: Array<WeakRef<object>> = [];
    // 200 entries: the ring grows twice on the way; all but the last are taken, in and out of order.
    for (let t = 1; t <= 200; t++) {
      const e = { ticket: t, at: t, payload: new Array<number>(100).fill(t) };
      refs.push(new WeakRef(e));
      queue.add(e);
    }
    for (let t = 199; t >= 100; t--) queue.take(t);
    for (let t = 1; t < 100; t++) queue.takeDue(1e9);
    expect(queue.values().map((e) => e.ticket)).toEqual([200]);
    await new Promise((r) => setImmediate(r));
    gc();
    expect(refs.slice(0, 199).filter((r) => r.deref() !== undefined)).toHaveLength(0);
    expect(refs[199]!.deref()).toBeDefined();
  });

  it('agrees with a Map under any mix of adds, takes and due takes', () => {
    type Op = { kind: 'add' } | { kind: 'take'; back: number } | { kind: 'due'; now: number } | { kind: 'all' };
    const op = fc.oneof(
      { arbitrary: fc.constant<Op>({ kind: 'add' }), weight: 6 },
      { arbitrary: fc.nat(40).map<Op>((back) => ({ kind: 'take', back })), weight: 3 },
      { arbitrary: fc.nat(400).map<Op>((now) => ({ kind: 'due', now })), weight: 2 },
      { arbitrary: fc.constant<Op>({ kind: 'all' }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const queue = createTicketQueue<Ticketed>();
        const model = new Map<number, Ticketed>();
        let next = 1;
        for (const o of ops) {
          if (o.kind === 'add') {
            const e = entry(next++);
            queue.add(e);
            model.set(e.ticket, e);
          } else if (o.kind === 'take') {
            const ticket = next - 1 - o.back;
            const expected = model.get(ticket);
            model.delete(ticket);
            expect(queue.take(ticket)).toBe(expected);
          } else if (o.kind === 'due') {
            const oldest = model.values().next().value as Ticketed | undefined;
            const expected = oldest && oldest.at <= o.now ? oldest : undefined;
            if (expected) model.delete(expected.ticket);
            expect(queue.takeDue(o.now)).toBe(expected);
          } else {
            expect(queue.takeAll()).toEqual([...model.values()]);
            model.clear();
          }
          expect(queue.size).toBe(model.size);
        }
        expect(queue.values()).toEqual([...model.values()]);
      }),
      { numRuns: 300 },
    );
  });
});
