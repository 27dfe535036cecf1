/** The delivery body of spec 6.1 as JSON Schema, one per trigger: the envelope with that trigger's `data`. */
import { DATA_SCHEMAS, type SchemaTrigger } from './data-schemas.js';
import type { JsonSchema } from './json-schema.js';

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The envelope's fields other than `type` and `data` (spec 6.1). */
export const ENVELOPE_FIELDS: Readonly<Record<string, JsonSchema>> = {
  id: { type: 'string', minLength: 1, description: 'The delivery id: equal to the x-service-delivery header and the same on every attempt (the dedupe key).' },
  apiVersion: { type: 'string', minLength: 1, description: 'The payload schema version, also in x-service-api-version (spec 9.5).', examples: ['2026-06-01'] },
  createdAt: { type: 'string', format: 'date-time', description: 'When the event was created.' },
  organizationId: { type: 'string', minLength: 1, description: 'The organization the event belongs to.' },
};

/** The whole delivery body of `trigger`: `{id, type, apiVersion, createdAt, organizationId, data}`. */
export function envelopeSchema(trigger: SchemaTrigger): JsonSchema {
  const data: JsonSchema = DATA_SCHEMAS[trigger];
  return {
    $schema: SCHEMA_DIALECT,
    title: trigger,
    description: `The body of a ${trigger} delivery (spec 6.1, 6.2). Fields not named here may appear and are to be ignored (spec 9.2).`,
    type: 'object',
    required: ['id', 'type', 'apiVersion', 'createdAt', 'organizationId', 'data'],
    properties: {
      id: ENVELOPE_FIELDS.id!,
      type: { type: 'string', const: trigger, description: 'The trigger that fired, also in x-service-event.' },
      apiVersion: ENVELOPE_FIELDS.apiVersion!,
      createdAt: ENVELOPE_FIELDS.createdAt!,
      organizationId: ENVELOPE_FIELDS.organizationId!,
      data: data,
    },
    additionalProperties: true,
  };
}

/** Every trigger's envelope schema, in the catalogue's order. */
export const TRIGGER_SCHEMAS: Readonly<Record<SchemaTrigger, JsonSchema>> = Object.fromEntries(
  (Object.keys(DATA_SCHEMAS) as SchemaTrigger[]).map((t) => [t, envelopeSchema(t)]),
) as Record<SchemaTrigger, JsonSchema>;
