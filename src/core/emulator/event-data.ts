/**
 * The `data` of an event fired through the emulator's control surface (spec 6.1, 6.2): the
 * trigger's fields only, identifiers and non-identifying facts, never a person's details. Fields
 * not given are taken from `sample`. What each field must hold is read from the trigger's JSON
 * Schema (core/schemas/data-schemas.ts), the one the kit's types and the drift warnings come from.
 */
import type { TriggerName } from '../envelope.js';
import type { Checked, FieldProblem } from '../retry-policy/validate-policy.js';
import { DATA_SCHEMAS } from '../schemas/data-schemas.js';
import { STRING_FORMATS } from '../schemas/formats.js';
import type { JsonSchema } from '../schemas/json-schema.js';

// For triggers whose data the spec does not show: identifiers only, named like the spec's (`…Id`).
const ID_FIELD = /^[a-z][A-Za-z0-9]{0,62}Id$/;
const MAX_OPEN_FIELDS = 20;

export function checkEventData(trigger: TriggerName, data: unknown, sample: Record<string, unknown>): Checked<Record<string, unknown>> {
  if (data === undefined) return { ok: true, value: sample };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return refuse('data', 'must be a JSON object');
  const given = data as Record<string, unknown>;
  const schema: JsonSchema = DATA_SCHEMAS[trigger];
  const fields = schema.required ?? [];
  const problems: FieldProblem[] = [];
  if (fields.length === 0) {
    const keys = Object.keys(given);
    if (keys.length > MAX_OPEN_FIELDS) problems.push({ field: 'data', message: `may have at most ${MAX_OPEN_FIELDS} fields` });
    for (const key of keys) {
      if (!ID_FIELD.test(key)) problems.push({ field: `data.${key.slice(0, 64)}`, message: `${trigger} carries identifiers only: a field named like accessRequestId, holding a UUID` });
      else if (typeof given[key] !== 'string' || !STRING_FORMATS.uuid(given[key] as string)) problems.push({ field: `data.${key}`, message: 'must be a UUID' });
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { ...given } };
  }
  for (const key of Object.keys(given)) {
    const field = schema.properties?.[key];
    if (field === undefined) problems.push({ field: `data.${key.slice(0, 64)}`, message: `is not a field of ${trigger} (fields: ${fields.join(', ')})` });
    else {
      const problem = checkField(field, given[key]);
      if (problem !== null) problems.push({ field: `data.${key}`, message: problem });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const value: Record<string, unknown> = {};
  for (const key of fields) value[key] = key in given ? given[key] : sample[key];
  return { ok: true, value };
}

/** What is wrong with `value` for a field of `schema`, or null. */
function checkField(schema: JsonSchema, value: unknown): string | null {
  if (schema.enum !== undefined) return typeof value === 'string' && schema.enum.includes(value) ? null : `must be one of ${schema.enum.join(', ')}`;
  if (schema.format === 'uuid') return typeof value === 'string' && STRING_FORMATS.uuid(value) ? null : 'must be a UUID';
  if (schema.format === 'date-time') return typeof value === 'string' && STRING_FORMATS['date-time'](value) ? null : 'must be an RFC 3339 date-time';
  if (schema.type === 'boolean') return typeof value === 'boolean' ? null : 'must be true or false';
  if (schema.type === 'string') return typeof value === 'string' ? null : 'must be a string';
  return null;
}

function refuse<T>(field: string, message: string): Checked<T> {
  return { ok: false, problems: [{ field, message }] };
}
