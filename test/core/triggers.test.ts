import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TriggerName } from '../../src/core/envelope.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { ACCESS_CHANNELS, DECIDED_BY_VALUES, TRIGGER_CATALOGUE, isKnownTrigger, sampleData } from '../../src/core/triggers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = Date.UTC(2026, 5, 1, 8, 30);

describe('the trigger catalogue (spec 6.2)', () => {
  it('lists the seven named triggers, the four Trust Center ones premium', () => {
    expect(TRIGGER_CATALOGUE.map((e) => [e.trigger, e.tier])).toEqual([
      ['trustcenter.access_requested', 'premium'],
      ['trustcenter.access_approved', 'premium'],
      ['trustcenter.access_rejected', 'premium'],
      ['trustcenter.resource_downloaded', 'premium'],
      ['control.drift_detected', 'core'],
      ['vendor.rating_dropped', 'core'],
      ['sod.violation_detected', 'core'],
    ]);
    for (const e of TRIGGER_CATALOGUE) {
      expect(e.description.length).toBeGreaterThan(10);
      expect(e).toMatchObject({ status: 'active', entitled: true });
    }
  });

  it('knows its names and nothing else', () => {
    expect(isKnownTrigger('trustcenter.access_requested')).toBe(true);
    expect(isKnownTrigger('trustcenter.access_granted')).toBe(false);
    expect(isKnownTrigger('')).toBe(false);
  });
});

describe('sampleData', () => {
  const sources = (seed: number) => ({ random: mulberry32(seed), now: () => NOW });

  it.each(TRIGGER_CATALOGUE.map((e) => [e.trigger, e.dataFields] as const))('%s carries exactly the fields %j', (trigger, fields) => {
    expect(Object.keys(sampleData(trigger, sources(1))).sort()).toEqual([...fields].sort());
  });

  it('uses ids, the listed enumerations and the injected clock only (spec 6.1: no personal details)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const s = sources(seed);
        const requested = sampleData('trustcenter.access_requested', s);
        expect(requested.accessRequestId).toMatch(UUID);
        const approved = sampleData('trustcenter.access_approved', s);
        expect(approved.accessRequestId).toMatch(UUID);
        expect(approved.visitorTokenId).toMatch(UUID);
        expect(DECIDED_BY_VALUES).toContain(approved.decidedBy);
        expect(DECIDED_BY_VALUES).toContain(sampleData('trustcenter.access_rejected', s).decidedBy);
        const download = sampleData('trustcenter.resource_downloaded', s);
        expect(ACCESS_CHANNELS).toContain(download.channel);
        expect(typeof download.watermarked).toBe('boolean');
        expect(download.occurredAt).toBe('2026-06-01T08:30:00.000Z');
        for (const id of [download.accessEventId, download.resourceId, download.visitorTokenId]) expect(id).toMatch(UUID);
      }),
      { seed: 12, numRuns: 300 },
    );
  });

  it('draws every decidedBy and every channel across seeds', () => {
    const decided = new Set<string>();
    const channels = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      decided.add(sampleData('trustcenter.access_approved', sources(seed)).decidedBy);
      channels.add(sampleData('trustcenter.resource_downloaded', sources(seed)).channel);
    }
    expect([...decided].sort()).toEqual(['access_rule', 'api_client', 'reviewer']);
    expect([...channels].sort()).toEqual(['bulk_zip', 'detail', 'download', 'external_link', 'viewer']);
  });

  it('repeats under one seed and takes an injected uuid source', () => {
    expect(sampleData('trustcenter.access_approved', sources(5))).toEqual(sampleData('trustcenter.access_approved', sources(5)));
    let n = 0;
    const data = sampleData('trustcenter.access_approved', { ...sources(5), uuid: () => `id-${++n}` });
    expect(data).toMatchObject({ accessRequestId: 'id-1', visitorTokenId: 'id-2' });
  });

  it('gives an empty object where the spec shows no data', () => {
    for (const t of ['control.drift_detected', 'vendor.rating_dropped', 'sod.violation_detected'] as TriggerName[]) {
      expect(sampleData(t, sources(1))).toEqual({});
    }
  });
});
