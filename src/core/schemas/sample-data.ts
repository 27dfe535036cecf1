/** A sample `data` drawn from a trigger's schema: what `send` sends and `emulate fire` fills in. */
import type { JsonSchema } from './json-schema.js';

export interface SampleDraws {
  uuid: () => string;
  /** A number in [0, 1). */
  random: () => number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * A value of each required field of an object schema, in its order: a UUID, one of an enum's values,
 * a boolean, a date-time of `now`. An object with no required field (the spec shows no data) is `{}`.
 */
export function sampleFromSchema(schema: JsonSchema, draws: SampleDraws): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of schema.required ?? []) out[key] = sampleValue(schema.properties?.[key] ?? {}, draws);
  return out;
}

function sampleValue(schema: JsonSchema, draws: SampleDraws): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum !== undefined) return schema.enum[Math.floor(draws.random() * schema.enum.length) % schema.enum.length];
  if (schema.format === 'uuid') return draws.uuid();
  if (schema.format === 'date-time') return new Date(draws.now()).toISOString();
  switch (schema.type) {
    case 'boolean': return draws.random() < 0.5;
    case 'object': return sampleFromSchema(schema, draws);
    case 'integer':
    case 'number': return 0;
    default: return 'sample';
  }
}
