/**
 * `hookrelay schema`: the JSON Schemas of the triggers, one or all; an unknown trigger is a usage
 * error naming the closest one; `--format openapi` is a valid OpenAPI 3.1 document (a maintained
 * validator says so) whose webhooks a code generator reads.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compile } from 'json-schema-to-typescript';
import { describe, expect, it } from 'vitest';
import { registerSchemaCommand } from '../../src/commands/schema.js';
import { EXIT } from '../../src/core/exit-codes.js';
import { STRING_FORMATS } from '../../src/core/schemas/formats.js';
import { TRIGGER_CATALOGUE } from '../../src/core/triggers.js';
import { runCli } from '../sender/helpers/cli.js';

const TRIGGERS = TRIGGER_CATALOGUE.map((e) => e.trigger);

describe('hookrelay schema', () => {
  it('prints every trigger\'s JSON Schema, keyed by trigger, each one ajv compiles', async () => {
    const { out, exitCode } = await runCli(registerSchemaCommand, ['schema']);
    expect(exitCode).toBeUndefined();
    const all = JSON.parse(out) as Record<string, { $schema: string; properties: { type: { const: string } } }>;
    expect(Object.keys(all)).toEqual(TRIGGERS);
    const ajv = new Ajv2020({ strict: true, formats: { ...STRING_FORMATS } });
    for (const [trigger, schema] of Object.entries(all)) {
      expect(schema.properties.type.const).toBe(trigger);
      expect(() => ajv.compile(schema)).not.toThrow();
    }
  });

  it('prints one trigger\'s schema, which says where the spec names no data fields', async () => {
    const one = JSON.parse((await runCli(registerSchemaCommand, ['schema', 'vendor.rating_dropped'])).out);
    expect(one.title).toBe('vendor.rating_dropped');
    expect(one.properties.data.description).toMatch(/Spec 6\.2 names no data fields/);
    const approved = JSON.parse((await runCli(registerSchemaCommand, ['schema', 'trustcenter.access_approved'])).out);
    expect(approved.properties.data.required).toEqual(['accessRequestId', 'visitorTokenId', 'decidedBy']);
  });

  it.each([
    [['schema', 'trustcenter.acces_approved'], /^error: unknown trigger "trustcenter\.acces_approved" \(did you mean trustcenter\.access_approved\?\); known: trustcenter\.access_requested, /],
    [['schema', 'nothing.like.it'], /^error: unknown trigger "nothing\.like\.it"; known: /],
    [['schema', '\u001b[31mred'], /^error: unknown trigger "\\u001b\[31mred"; known: /],
    [['schema', '--format', 'yaml'], /^error: --format must be json-schema or openapi, not "yaml"/],
  ])('%j is a usage error (exit 2) that says why', async (args, message) => {
    const { out, err, exitCode } = await runCli(registerSchemaCommand, args);
    expect(exitCode).toBe(EXIT.usage);
    expect(out).toBe('');
    expect(err).toMatch(message);
  });
});

describe('hookrelay schema --format openapi', () => {
  it('is a valid OpenAPI 3.1 document with one POST webhook per trigger, its headers and body schema', async () => {
    const { out, exitCode } = await runCli(registerSchemaCommand, ['schema', '--format', 'openapi']);
    expect(exitCode).toBeUndefined();
    const doc = JSON.parse(out);
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(Object.keys(doc.webhooks)).toEqual(TRIGGERS);
    const resolved = validator.resolveRefs() as { webhooks: Record<string, { post: any }> };
    for (const trigger of TRIGGERS) {
      const post = resolved.webhooks[trigger]!.post;
      const headers = post.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in}:${p.name}:${p.required}`);
      expect(headers).toEqual(expect.arrayContaining([
        'header:x-service-event:true', 'header:x-service-delivery:true', 'header:x-service-delivery-attempt:true',
        'header:x-service-api-version:true', 'header:x-service-signature:false',
      ]));
      const body = post.requestBody.content['application/json'].schema;
      expect(body.properties.type.const).toBe(trigger);
      expect(body.required).toContain('data');
    }
    expect(resolved.webhooks['trustcenter.access_approved']!.post.requestBody.content['application/json'].schema.properties.data.properties.decidedBy.enum).toEqual(['reviewer', 'access_rule', 'api_client']);
  });

  it('names its components as the kit\'s types are named, so a code generator\'s union matches hookrelay\'s', async () => {
    const doc = JSON.parse((await runCli(registerSchemaCommand, ['schema', '--format', 'openapi'])).out);
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['DecidedBy', 'AccessChannel', 'TrustcenterAccessApprovedData', 'TrustcenterAccessApprovedEvent', 'KnownEvent']));
    const ts = await compile({ ...schemas.KnownEvent, components: doc.components, title: 'KnownEvent' } as never, 'KnownEvent', { bannerComment: '', additionalProperties: false });
    expect(ts).toMatch(/export type KnownEvent =\s*\|?\s*TrustcenterAccessRequestedEvent/);
    expect(ts).toMatch(/export type DecidedBy = "reviewer" \| "access_rule" \| "api_client";/);
    expect(ts).toMatch(/type: "trustcenter\.access_approved";/);
  });

  it('holds only the trigger asked for, and stays valid', async () => {
    const doc = JSON.parse((await runCli(registerSchemaCommand, ['schema', 'sod.violation_detected', '--format', 'openapi'])).out);
    expect(Object.keys(doc.webhooks)).toEqual(['sod.violation_detected']);
    expect((await new Validator().validate(doc)).valid).toBe(true);
  });
});
