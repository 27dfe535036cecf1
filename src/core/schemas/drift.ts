/**
 * Drift: a delivery of a known trigger whose known field is missing or of the wrong type. A warning
 * on the record, never a refusal: `/v1` only adds fields (spec 9.2), and a sender that drops or
 * retypes one is worth seeing, not losing. This turns a validator's findings into lines that name
 * the JSON pointer and what was expected: `/data/visitorTokenId: missing (uuid string expected)`.
 */
import type { JsonSchema } from './json-schema.js';

/** At most this many findings are listed; the rest are counted. */
export const MAX_DRIFT_LINES = 5;

/** One finding as a JSON Schema validator reports it (ajv's error objects, with `verbose`). */
export interface SchemaFinding {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  schema?: unknown;
  parentSchema?: JsonSchema;
  data?: unknown;
}

export interface SchemaDrift {
  /** The trigger whose schema the body was read against. */
  trigger: string;
  /** At most MAX_DRIFT_LINES lines, each `<pointer>: <what was found> (<what> expected)`. */
  problems: string[];
  /** Findings not listed. */
  more: number;
}

/** The drift of one body, or null when its findings are none. */
export function describeDrift(trigger: string, findings: readonly SchemaFinding[]): SchemaDrift | null {
  const lines = [...new Set(findings.map(describeFinding))];
  if (lines.length === 0) return null;
  return { trigger, problems: lines.slice(0, MAX_DRIFT_LINES), more: Math.max(0, lines.length - MAX_DRIFT_LINES) };
}

function describeFinding(f: SchemaFinding): string {
  const parent = f.parentSchema;
  switch (f.keyword) {
    case 'required': {
      const name = String(f.params.missingProperty);
      return `${f.instancePath}/${pointerToken(name)}: missing (${expected(parent?.properties?.[name])} expected)`;
    }
    case 'type':
    case 'enum':
    case 'const':
    case 'format':
    case 'minLength':
      return `${f.instancePath || '/'}: ${found(f.data)} (${expected(parent)} expected)`;
    default:
      return `${f.instancePath || '/'}: fails "${f.keyword}"`;
  }
}

/** What a field's schema asks for, in words. */
function expected(schema: JsonSchema | undefined): string {
  if (schema === undefined) return 'a value';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return `one of ${schema.enum.join(', ')}`;
  if (schema.type === 'string' && schema.format !== undefined) return `${schema.format} string`;
  if (schema.type === 'string' && schema.minLength !== undefined && schema.minLength > 0) return 'non-empty string';
  return schema.type ?? 'a value';
}

/** What was there: its JSON type, and a string's first characters (the page and terminal print it safely). */
function found(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}…` : JSON.stringify(value);
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

// RFC 6901: `~` and `/` in a name are escaped.
const pointerToken = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');
