import { describe, expect, it } from 'vitest';
import type { FreshDelivery } from '../../src/core/records.js';
import { outboxPortOf } from '../../src/runtime/outbox-port.js';

const delivery: FreshDelivery = { seq: 1, id: 'd', trigger: 't', receivedAt: 0, rawBody: Buffer.alloc(0), rawHeaders: [] };

describe('outboxPortOf', () => {
  it('tells every consumer in order; one that throws is reported and the next is told all the same', () => {
    const told: string[] = [];
    const errors: string[] = [];
    const port = outboxPortOf(
      [
        { stored: () => void told.push('a') },
        { stored: () => { throw new Error('b failed'); } },
        { stored: () => void told.push('c') },
      ],
      (err) => errors.push((err as Error).message),
    );
    port.stored(delivery);
    expect(told).toEqual(['a', 'c']);
    expect(errors).toEqual(['b failed']);
  });
});
