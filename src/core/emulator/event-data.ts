/**
 * The `data` of an event fired through the emulator's control surface (spec 6.1, 6.2): the
 * trigger's fields only, identifiers and non-identifying facts, never a person's details. Fields
 * not given are taken from `sample`.
 */
import { ACCESS_CHANNELS, DECIDED_BY_VALUES, TRIGGER_CATALOGUE } from '../triggers.js';
import type { TriggerName } from '../envelope.js';
import type { Checked, FieldProblem } from '../retry-policy/validate-policy.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
// For triggers whose data the spec does not show: identifiers only, named like the spec's (`…Id`).
const ID_FIELD = /^[a-z][A-Za-z0-9]{0,62}Id$/;
const MAX_OPEN_FIELDS = 20;

export function checkEventData(trigger: TriggerName, data: unknown, sample: Record<string, unknown>): Checked<Record<string, unknown>> {
  if (data === undefined) return { ok: true, value: sample };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return refuse('data', 'must be a JSON object');
  const given = data as Record<string, unknown>;
  const fields = TRIGGER_CATALOGUE.find((e) => e.trigger === trigger)!.dataFields;
  const problems: FieldProblem[] = [];
  if (fields.length === 0) {
    const keys = Object.keys(given);
    if (keys.length > MAX_OPEN_FIELDS) problems.push({ field: 'data', message: `may have at most ${MAX_OPEN_FIELDS} fields` });
    for (const key of keys) {
      if (!ID_FIELD.test(key)) problems.push({ field: `data.${key.slice(0, 64)}`, message: `${trigger} carries identifiers only: a field named like accessRequestId, holding a UUID` });
      else if (typeof given[key] !== 'string' || !UUID.test(given[key] as string)) problems.push({ field: `data.${key}`, message: 'must be a UUID' });
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { ...given } };
  }
  for (const key of Object.keys(given)) {
    if (!fields.includes(key)) problems.push({ field: `data.${key.slice(0, 64)}`, message: `is not a field of ${trigger} (fields: ${fields.join(', ')})` });
    else {
      const problem = checkField(key, given[key]);
      if (problem !== null) problems.push({ field: `data.${key}`, message: problem });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const value: Record<string, unknown> = {};
  for (const key of fields) value[key] = key in given ? given[key] : sample[key];
  return { ok: true, value };
}

function checkField(key: string, value: unknown): string | null {
  if (key.endsWith('Id')) return typeof value === 'string' && UUID.test(value) ? null : 'must be a UUID';
  if (key === 'decidedBy') return typeof value === 'string' && (DECIDED_BY_VALUES as readonly string[]).includes(value) ? null : `must be one of ${DECIDED_BY_VALUES.join(', ')}`;
  if (key === 'channel') return typeof value === 'string' && (ACCESS_CHANNELS as readonly string[]).includes(value) ? null : `must be one of ${ACCESS_CHANNELS.join(', ')}`;
  if (key === 'watermarked') return typeof value === 'boolean' ? null : 'must be true or false';
  if (key === 'occurredAt') return typeof value === 'string' && RFC3339.test(value) && Number.isFinite(Date.parse(value)) ? null : 'must be an RFC 3339 date-time';
  return null;
}

function refuse<T>(field: string, message: string): Checked<T> {
  return { ok: false, problems: [{ field, message }] };
}
