import { describe, expect, it } from 'vitest';
import type { FreshDelivery } from '../../src/core/records.js';
import { outboxPortOf } from '../../src/runtime/outbox-port.js';

const delivery: FreshDelivery = { seq: 1, id: 'd', trigger: 't', receivedAt: 0, rawBody: Buffer.alloc(0), rawHeaders: [] };

describe('outboxPortOf', () => {
  it('tells every consumer in order; one that throws is reported once, with its delivery, and the next is told all the same', () => {
    const told: string[] = [];
    const errors: string[] = [];
    const port = outboxPortOf(
      [
        { stored: () => void told.push('a') },
        { stored: () => { throw new Error('b failed'); } },
        { stored: () => void told.push('c') },
      ],
      (err, d) => errors.push(`${(err as Error).message} (${d.id})`),
    );
    port.stored(delivery);
    expect(told).toEqual(['a', 'c']);
    expect(errors).toEqual(['b failed (d)']);
  });

  it('never throws, not even when the report fails: the next consumer is told', () => {
    const told: string[] = [];
    const port = outboxPortOf([{ stored: () => { throw new Error('consumer failed'); } }, { stored: (d) => void told.push(d.id) }], () => {
      throw new Error('the report failed too');
    });
    expect(() => port.stored(delivery)).not.toThrow();
    expect(told).toEqual(['d']);
  });
});
