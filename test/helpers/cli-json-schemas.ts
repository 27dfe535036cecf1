/**
 * The JSON Schemas of docs/cli-json.md, read from the page itself so that the page and the test
 * cannot drift apart: every `### …` heading followed by a ```json block is one schema, named by the
 * heading's text between backticks (`hookrelay status --json`). "Shared definitions" is added to
 * ajv first, and the others reach it through its `$id`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { STRING_FORMATS } from '../../src/core/schemas/formats.js';

export const CLI_JSON_DOC = fileURLToPath(new URL('../../docs/cli-json.md', import.meta.url));
export const SHARED = 'Shared definitions';

/** Each heading's name and the parsed JSON of the ```json block right under it (text between is allowed, another heading is not). */
export function schemasOfDoc(markdown: string): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  const sections = markdown.split(/^### /m).slice(1);
  for (const section of sections) {
    const heading = section.slice(0, section.indexOf('\n')).trim();
    const block = /^```json\n([\s\S]*?)^```$/m.exec(section);
    if (!block) continue;
    const name = /^`([^`]+)`/.exec(heading)?.[1] ?? heading;
    if (found.has(name)) throw new Error(`docs/cli-json.md: two schemas under "${name}"`);
    found.set(name, JSON.parse(block[1]!) as Record<string, unknown>);
  }
  return found;
}

/** A validator for each documented command (strict ajv, the formats hookrelay's own schemas use). */
export function compileDocSchemas(markdown = readFileSync(CLI_JSON_DOC, 'utf8')): Map<string, ValidateFunction> {
  const schemas = schemasOfDoc(markdown);
  const ajv = new Ajv2020({ allErrors: true, strict: true, formats: { ...STRING_FORMATS } });
  const shared = schemas.get(SHARED);
  if (!shared) throw new Error(`docs/cli-json.md has no "${SHARED}" schema`);
  ajv.addSchema(shared);
  const validators = new Map<string, ValidateFunction>();
  for (const [name, schema] of schemas) if (name !== SHARED) validators.set(name, ajv.compile(schema));
  return validators;
}

/** What ajv said, short enough for a failed expectation. */
export function problemsOf(validate: ValidateFunction): string {
  return (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n');
}
