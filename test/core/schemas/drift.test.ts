/** Drift lines: the JSON pointer, what was there, what was expected; at most MAX_DRIFT_LINES, the rest counted. */
import { describe, expect, it } from 'vitest';
import { MAX_DRIFT_LINES, describeDrift, type SchemaFinding } from '../../../src/core/schemas/drift.js';

const object = { type: 'object', properties: { visitorTokenId: { type: 'string', format: 'uuid' }, decidedBy: { enum: ['reviewer', 'api_client'] }, watermarked: { type: 'boolean' } } } as const;

describe('describeDrift', () => {
  it.each<[string, SchemaFinding, string]>([
    ['a missing field', { instancePath: '/data', keyword: 'required', params: { missingProperty: 'visitorTokenId' }, parentSchema: object }, '/data/visitorTokenId: missing (uuid string expected)'],
    ['a wrong type', { instancePath: '/data/watermarked', keyword: 'type', params: {}, parentSchema: object.properties.watermarked, data: 1 }, '/data/watermarked: integer (boolean expected)'],
    ['null', { instancePath: '/data/watermarked', keyword: 'type', params: {}, parentSchema: object.properties.watermarked, data: null }, '/data/watermarked: null (boolean expected)'],
    ['a value outside the enum', { instancePath: '/data/decidedBy', keyword: 'enum', params: {}, parentSchema: object.properties.decidedBy, data: 'sso' }, '/data/decidedBy: "sso" (one of reviewer, api_client expected)'],
    ['a bad format', { instancePath: '/data/visitorTokenId', keyword: 'format', params: {}, parentSchema: object.properties.visitorTokenId, data: '42' }, '/data/visitorTokenId: "42" (uuid string expected)'],
    ['a long string, cut', { instancePath: '/data/visitorTokenId', keyword: 'format', params: {}, parentSchema: object.properties.visitorTokenId, data: 'x'.repeat(100) }, `/data/visitorTokenId: "${'x'.repeat(40)}"… (uuid string expected)`],
    ['a name with / and ~ (RFC 6901)', { instancePath: '/data', keyword: 'required', params: { missingProperty: 'a/b~c' }, parentSchema: { type: 'object' } }, '/data/a~1b~0c: missing (a value expected)'],
  ])('%s', (_, finding, line) => {
    expect(describeDrift('t', [finding])).toEqual({ trigger: 't', problems: [line], more: 0 });
  });

  it('is null without findings, lists at most MAX_DRIFT_LINES and counts the rest', () => {
    expect(describeDrift('t', [])).toBeNull();
    const findings = Array.from({ length: MAX_DRIFT_LINES + 3 }, (_, i) => ({ instancePath: '/data', keyword: 'required', params: { missingProperty: `f${i}` } }));
    const drift = describeDrift('t', findings)!;
    expect(drift.problems).toHaveLength(MAX_DRIFT_LINES);
    expect(drift.more).toBe(3);
    expect(drift.problems[0]).toBe('/data/f0: missing (a value expected)');
  });
});
