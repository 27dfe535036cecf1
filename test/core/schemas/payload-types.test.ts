/** The kit's types are what the schemas give: the checked-in file is the generator's output. */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AccessChannel, DecidedBy, DeliveryEnvelope, EnvelopeFields, KnownEnvelope, TriggerPayloads } from '../../../src/core/envelope-types.js';
import { OUTPUT, generateTriggerTypes, generatedTypes } from '../../../scripts/gen-trigger-types.js';
import { DATA_SCHEMAS } from '../../../src/core/schemas/data-schemas.js';
import { ENVELOPE_FIELDS } from '../../../src/core/schemas/envelope-schema.js';

describe('src/core/schemas/payload-types.ts', () => {
  it('is what scripts/gen-trigger-types.ts writes from the schemas (run it after changing a schema)', () => {
    expect(readFileSync(OUTPUT, 'utf8')).toBe(generatedTypes());
  });

  it('would differ after a schema changes: a new field is typed, an open data stays open', () => {
    const changed = { ...DATA_SCHEMAS, 'trustcenter.access_requested': { type: 'object', required: ['accessRequestId', 'score'], properties: { accessRequestId: { type: 'string' }, score: { type: 'integer' } } } } as const;
    const text = generateTriggerTypes(changed, ENVELOPE_FIELDS);
    expect(text).not.toBe(generatedTypes());
    expect(text).toMatch(/export interface TrustcenterAccessRequestedData \{\n {2}accessRequestId: string;\n {2}score: number;\n\}/);
    expect(text).toMatch(/export interface ControlDriftDetectedData \{\n {2}\[key: string\]: unknown;\n\}/);
  });

  it('names a titled enum once and refuses two different schemas under one title', () => {
    const text = generatedTypes();
    expect(text.match(/export type DecidedBy = 'reviewer' \| 'access_rule' \| 'api_client';/g)).toHaveLength(1);
    const clash = { a: { type: 'object', required: ['x'], properties: { x: { title: 'Kind', enum: ['a'] } } }, b: { type: 'object', required: ['x'], properties: { x: { title: 'Kind', enum: ['b'] } } } } as const;
    expect(() => generateTriggerTypes(clash, ENVELOPE_FIELDS)).toThrow(/two schemas are titled Kind/);
  });

  it('quotes a property name that is not an identifier and escapes a comment end in a description', () => {
    const text = generateTriggerTypes({ odd: { type: 'object', required: ['a-b'], properties: { 'a-b': { type: 'boolean', description: 'ends */ here' } } } }, {});
    expect(text).toContain("'a-b': boolean;");
    expect(text).toContain('/** ends *\\/ here */');
  });
});

describe('the envelope types built on them', () => {
  it('KnownEnvelope is discriminated on type: a switch narrows data; DeliveryEnvelope keeps its shape', () => {
    const read = (e: KnownEnvelope): string => {
      switch (e.type) {
        case 'trustcenter.resource_downloaded':
          expectTypeOf(e.data.channel).toEqualTypeOf<AccessChannel>();
          return e.data.occurredAt;
        case 'trustcenter.access_approved':
          expectTypeOf(e.data.decidedBy).toEqualTypeOf<DecidedBy>();
          return e.data.visitorTokenId;
        default:
          return e.id;
      }
    };
    expect(read({ id: 'd', type: 'control.drift_detected', apiVersion: 'v', createdAt: 'c', organizationId: 'o', data: {} })).toBe('d');
    expectTypeOf<DeliveryEnvelope<'trustcenter.access_requested'>['data']>().toEqualTypeOf<TriggerPayloads['trustcenter.access_requested']>();
    expectTypeOf<DeliveryEnvelope<'later.trigger'>['data']>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<keyof EnvelopeFields>().toEqualTypeOf<'id' | 'apiVersion' | 'createdAt' | 'organizationId'>();
  });
});
