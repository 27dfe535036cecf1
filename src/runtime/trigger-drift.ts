/**
 * The drift of a stored delivery against its trigger's schema (src/core/schemas/drift.ts), computed
 * when a record is read (`events show`, the console's detail), never on the intake path. ajv is
 * imported statically here, so a caller loads it with `await import('../runtime/trigger-drift.js')`
 * on first use: `listen` never loads it at start. Each schema is compiled once, on first use.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { decodeBodyLeniently } from '../core/envelope.js';
import { DATA_SCHEMAS, type SchemaTrigger } from '../core/schemas/data-schemas.js';
import { describeDrift, type SchemaDrift, type SchemaFinding } from '../core/schemas/drift.js';
import { envelopeSchema } from '../core/schemas/envelope-schema.js';
import { STRING_FORMATS } from '../core/schemas/formats.js';

let ajv: Ajv2020 | null = null;
const compiled = new Map<SchemaTrigger, ValidateFunction>();

function validatorOf(trigger: SchemaTrigger): ValidateFunction {
  let validate = compiled.get(trigger);
  if (validate === undefined) {
    ajv ??= new Ajv2020({ allErrors: true, verbose: true, strict: true, formats: { ...STRING_FORMATS } });
    validate = ajv.compile(envelopeSchema(trigger));
    compiled.set(trigger, validate);
  }
  return validate;
}

/**
 * The drift of a parsed body: null when its trigger has no schema (spec 9.2: a trigger added later)
 * or nothing known is missing or mistyped.
 */
export function driftOf(body: unknown): SchemaDrift | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const type = (body as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(DATA_SCHEMAS, type)) return null;
  const validate = validatorOf(type as SchemaTrigger);
  if (validate(body)) return null;
  return describeDrift(type, (validate.errors ?? []) as SchemaFinding[]);
}

/** The drift of a stored body's bytes; a body that is not JSON (stored with --skip-verify) has none to tell. */
export function driftOfBody(raw: Uint8Array): SchemaDrift | null {
  let body: unknown;
  try {
    body = JSON.parse(decodeBodyLeniently(raw));
  } catch {
    return null;
  }
  return driftOf(body);
}
