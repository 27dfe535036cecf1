/** The adapters' Buffer-free envelope check gives the core's verdicts and messages (src/core/envelope.ts checkEnvelope). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEnvelope, CURRENT_API_VERSION as CORE_VERSION } from '../../src/core/envelope.js';
import { CURRENT_API_VERSION, readEnvelope } from '../../src/kit/read-envelope.js';

const BOM = [0xef, 0xbb, 0xbf];

const envelopeLike = fc.record(
  {
    id: fc.oneof(fc.constant('d_1'), fc.string({ maxLength: 3 }), fc.constant('x'.repeat(257)), fc.integer()),
    type: fc.oneof(fc.constant('trustcenter.access_requested'), fc.string({ maxLength: 3 }), fc.constant('t'.repeat(300))),
    apiVersion: fc.constantFrom('2026-06-01', '2027-01-01', ''),
    createdAt: fc.constantFrom('2026-06-01T10:00:00Z', '2026-06-01T10:00:00.123+02:00', '2026-13-45T99:00:00Z', 'yesterday'),
    organizationId: fc.constantFrom('org_1', ''),
    data: fc.oneof(fc.constant({ accessRequestId: 'ar' }), fc.constant(null), fc.constant([]), fc.string()),
  },
  { requiredKeys: [] },
);

const bodies = fc.oneof(
  envelopeLike.map((e) => new TextEncoder().encode(JSON.stringify(e))),
  fc.tuple(envelopeLike, fc.boolean()).map(([e, bom]) => Uint8Array.from([...(bom ? BOM : []), ...new TextEncoder().encode(JSON.stringify(e, null, 1))])),
  fc.uint8Array({ maxLength: 64 }),
  fc.json().map((j) => new TextEncoder().encode(j)),
  // Invalid UTF-8 inside a string value.
  fc.constant(Uint8Array.from([...new TextEncoder().encode('{"id":"d_1","x":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}')])),
);

describe('readEnvelope', () => {
  it('agrees with the core’s checkEnvelope on any bytes and headers', () => {
    fc.assert(
      fc.property(bodies, fc.constantFrom(undefined, 'd_1', 'other'), fc.constantFrom(undefined, 'trustcenter.access_requested'), (body, deliveryId, event) => {
        const core = checkEnvelope(Buffer.from(body), { deliveryId, event });
        expect(readEnvelope(body, { deliveryId, event })).toEqual(core);
      }),
      { numRuns: 3000, seed: 18 },
    );
  });

  it('knows the core’s schema version', () => {
    expect(CURRENT_API_VERSION).toBe(CORE_VERSION);
  });
});
