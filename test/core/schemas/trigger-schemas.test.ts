/**
 * One JSON Schema per trigger (spec 6.1, 6.2): each is valid draft 2020-12, and every body `send`
 * and `emulate fire` produce, for every trigger, validates against its trigger's schema (ajv).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSendSettings, type SendFlags } from '../../../src/config/send-settings.js';
import { DATA_SCHEMAS } from '../../../src/core/schemas/data-schemas.js';
import { TRIGGER_SCHEMAS, envelopeSchema } from '../../../src/core/schemas/envelope-schema.js';
import { STRING_FORMATS } from '../../../src/core/schemas/formats.js';
import { TRIGGER_CATALOGUE } from '../../../src/core/triggers.js';
import { startEmulator, type Harness } from '../../emulate/helpers.js';

const TRIGGERS = TRIGGER_CATALOGUE.map((e) => e.trigger);
const ajv = new Ajv2020({ allErrors: true, strict: true, formats: { ...STRING_FORMATS } });
const validators = new Map(TRIGGERS.map((t) => [t, ajv.compile(envelopeSchema(t))]));

function expectValid(body: unknown): void {
  const type = (body as { type: string }).type;
  const validate = validators.get(type as (typeof TRIGGERS)[number]);
  expect(validate, `a schema for ${type}`).toBeDefined();
  expect(validate!(body), `${type}: ${JSON.stringify(validate!.errors)}`).toBe(true);
}

const sendFlags = (trigger: string): SendFlags => ({
  to: 'http://127.0.0.1:9/hook', trigger, unsigned: true, count: '20', concurrency: '1', timeScale: '1', timeout: '10s', autoDisableAfter: '15', disableOnGone: true,
}) as SendFlags;

describe('the trigger schemas', () => {
  it('cover exactly the catalogue, in its order, each requiring the data fields spec 6.2 names', () => {
    expect(Object.keys(TRIGGER_SCHEMAS)).toEqual(TRIGGERS);
    for (const entry of TRIGGER_CATALOGUE) {
      const schema = TRIGGER_SCHEMAS[entry.trigger];
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.required).toEqual(['id', 'type', 'apiVersion', 'createdAt', 'organizationId', 'data']);
      expect(schema.properties?.type).toMatchObject({ const: entry.trigger });
      expect((schema.properties?.data?.required ?? [])).toEqual(entry.dataFields);
    }
  });

  it('say in their description where the spec names no data fields, and keep that data open', () => {
    for (const trigger of ['control.drift_detected', 'vendor.rating_dropped', 'sod.violation_detected'] as const) {
      const data = DATA_SCHEMAS[trigger];
      expect(data.description).toMatch(/Spec 6\.2 names no data fields/);
      expect(data.additionalProperties).toBe(true);
      expect(validators.get(trigger)!({ id: 'd', type: trigger, apiVersion: '2026-06-01', createdAt: '2026-06-01T00:00:00Z', organizationId: 'o', data: { anything: [1, { x: null }] } })).toBe(true);
    }
  });

  it('allow fields they do not name, in the envelope and in data (spec 9.2: /v1 only adds)', () => {
    const body = { id: 'd', type: 'trustcenter.access_rejected', apiVersion: '2026-06-01', createdAt: '2026-06-01T00:00:00Z', organizationId: 'o', later: true, data: { accessRequestId: '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60', decidedBy: 'reviewer', reason: 'x' } };
    expectValid(body);
  });

  it.each([
    ['a missing field', { accessRequestId: '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60' }],
    ['a value outside the enum', { accessRequestId: '3f1c5a2e-8b7d-4c6e-9f0a-1b2c3d4e5f60', decidedBy: 'boss' }],
    ['an id that is not a uuid', { accessRequestId: '42', decidedBy: 'reviewer' }],
    ['a number for a string', { accessRequestId: 42, decidedBy: 'reviewer' }],
  ])('refuse %s (what drift reports)', (_, data) => {
    expect(validators.get('trustcenter.access_rejected')!({ id: 'd', type: 'trustcenter.access_rejected', apiVersion: 'v', createdAt: '2026-06-01T00:00:00Z', organizationId: 'o', data })).toBe(false);
  });

  it.each(TRIGGERS)('validate every body `send` builds for %s (20 seeded samples)', (trigger) => {
    for (const seed of ['1', '2', '3']) {
      const resolved = resolveSendSettings({ ...sendFlags(trigger), seed }, () => Date.parse('2026-06-01T10:00:00Z'), {});
      if (!resolved.ok) throw new Error(JSON.stringify(resolved));
      expect(resolved.settings.deliveries).toHaveLength(20);
      for (const d of resolved.settings.deliveries) expectValid(JSON.parse(d.body.toString('utf8')));
    }
  });
});

describe('the bodies of emulate fire and of decisions through the API', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startEmulator({ plan: 'premium' });
  });
  afterEach(async () => {
    await h.close();
  });

  it('validate against their trigger schema, for every trigger', async () => {
    const hook = await h.api('POST', '/v1/webhooks', { body: { name: 'all', triggers: TRIGGERS, endpoint: 'http://127.0.0.1:9/hook' } });
    expect(hook.status).toBe(201);
    const requests: string[] = [];
    for (const type of TRIGGERS) {
      const fired = await h.api('POST', '/v1/_emulator/events', { body: { type, count: 2 } });
      expect(fired.status).toBe(201);
      if (type === 'trustcenter.access_requested') requests.push(...fired.body.data.recordIds);
    }
    expect((await h.api('POST', `/v1/trust-center/access-requests/${requests[0]}/approve`, { body: {} })).status).toBe(200);
    expect((await h.api('POST', `/v1/trust-center/access-requests/${requests[1]}/reject`, { body: { reason: 'not a customer' } })).status).toBe(200);
    const listed = await h.api('GET', `/v1/webhooks/${hook.body.data.webhook.id}/deliveries?limit=100`);
    const bodies = listed.body.data.map((d: { payload: unknown }) => d.payload) as Array<{ type: string }>;
    expect(new Set(bodies.map((b) => b.type))).toEqual(new Set(TRIGGERS));
    expect(bodies.length).toBe(TRIGGERS.length * 2 + 2);
    for (const body of bodies) expectValid(body);
  });
});
