/** Drift of a stored body against its trigger's schema: a warning's lines, or null. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DATA_SCHEMAS } from '../../src/core/schemas/data-schemas.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { sampleData, TRIGGER_CATALOGUE } from '../../src/core/triggers.js';
import { driftOf, driftOfBody } from '../../src/runtime/trigger-drift.js';

const ID = '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60';
const envelope = (type: string, data: unknown) => ({ id: 'd-1', type, apiVersion: '2026-06-01', createdAt: '2026-06-01T10:00:00Z', organizationId: 'org', data });

describe('driftOf', () => {
  it('is null for a body that matches, extra fields included (spec 9.2)', () => {
    expect(driftOf({ ...envelope('trustcenter.access_approved', { accessRequestId: ID, visitorTokenId: ID, decidedBy: 'api_client', later: 1 }), also: 'new' })).toBeNull();
  });

  it('names each missing or mistyped known field with its pointer and what was expected', () => {
    expect(driftOf(envelope('trustcenter.access_approved', { accessRequestId: ID, decidedBy: 7 }))).toEqual({
      trigger: 'trustcenter.access_approved',
      problems: ['/data/visitorTokenId: missing (uuid string expected)', '/data/decidedBy: integer (one of reviewer, access_rule, api_client expected)'],
      more: 0,
    });
  });

  it('lists five and counts the rest', () => {
    const drift = driftOf(envelope('trustcenter.resource_downloaded', { watermarked: 'yes' }))!;
    expect(drift.problems).toHaveLength(5);
    expect(drift.more).toBe(1);
  });

  it('says nothing of a trigger it has no schema for, of open data, or of a body that is not an object', () => {
    expect(driftOf(envelope('trustcenter.new_thing', {}))).toBeNull();
    expect(driftOf(envelope('control.drift_detected', { anything: [1] }))).toBeNull();
    expect(driftOf(envelope('toString', {}))).toBeNull();
    expect(driftOf([])).toBeNull();
    expect(driftOfBody(Buffer.from('not json'))).toBeNull();
  });

  it('reads stored bytes, a BOM included, and flags a retyped field of an open trigger it knows', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(envelope('sod.violation_detected', { sodViolationId: 12 })))]);
    expect(driftOfBody(bytes)?.problems).toEqual(['/data/sodViolationId: integer (uuid string expected)']);
  });
});

describe('driftOf, against every sample of every trigger (seeded)', () => {
  const triggers = TRIGGER_CATALOGUE.map((e) => e.trigger);

  it('finds none in a sample, and names exactly the required field taken out or retyped', () => {
    fc.assert(
      fc.property(fc.constantFrom(...triggers), fc.integer({ min: 1, max: 2 ** 31 }), fc.nat(), fc.constantFrom<unknown>(null, 7, true, [], {}), (trigger, seed, pick, wrong) => {
        const data = sampleData(trigger, { random: mulberry32(seed), now: () => 1_780_000_000_000 }) as Record<string, unknown>;
        expect(driftOf(envelope(trigger, data))).toBeNull();
        const required: readonly string[] = (DATA_SCHEMAS[trigger] as { required?: readonly string[] }).required ?? [];
        if (required.length === 0) return;
        const field = required[pick % required.length]!;
        const { [field]: _, ...without } = data;
        expect(driftOf(envelope(trigger, without))?.problems).toEqual([expect.stringMatching(new RegExp(`^/data/${field}: missing \\(.+ expected\\)$`))]);
        if (typeof wrong === typeof data[field] && wrong !== null) return;
        expect(driftOf(envelope(trigger, { ...data, [field]: wrong }))?.problems).toEqual([expect.stringMatching(new RegExp(`^/data/${field}: \\S+ \\(.+ expected\\)$`))]);
      }),
      { seed: 40, numRuns: 300 },
    );
  });
});
