/**
 * The bodies of POST /webhooks and PATCH /webhooks/{id} (spec 4.3, section 8 bounds). Unknown
 * fields are refused (422 naming the field), so a typo never passes silently. Returns the
 * checked values or every problem, each naming its field; never throws.
 */
import { isKnownTrigger } from '../triggers.js';
import type { FailureHandling, RetryPolicy } from '../retry-policy/policy.js';
import { validateFailureHandling, validateRetryPolicy, type Checked, type FieldProblem } from '../retry-policy/validate-policy.js';

export interface CustomHeaderInput {
  name: string;
  value: string;
}

export interface WebhookCreate {
  name: string;
  triggers: string[];
  endpoint: string;
  customHeaders: CustomHeaderInput[];
  signingEnabled: boolean;
  retryPolicy: RetryPolicy;
  failureHandling: FailureHandling;
}

export interface WebhookPatch {
  name?: string;
  triggers?: string[];
  endpoint?: string;
  status?: 'active' | 'disabled';
  customHeaders?: CustomHeaderInput[];
  /** The stored policy with the given fields replaced (spec 4.3: the policy objects are partial). */
  retryPolicy?: RetryPolicy;
  failureHandling?: FailureHandling;
}

/** Section 8. */
export const WEBHOOK_BOUNDS = Object.freeze({
  name: { min: 1, max: 120 },
  triggers: { min: 1, max: 50 },
  endpointMaxLength: 2048,
  customHeaders: 20,
  headerName: { min: 1, max: 128 },
  headerValueMax: 4096,
});

const CREATE_FIELDS = ['name', 'triggers', 'endpoint', 'customHeaders', 'signingEnabled', 'retryPolicy', 'failureHandling'] as const;
const PATCH_FIELDS = ['name', 'triggers', 'endpoint', 'status', 'customHeaders', 'retryPolicy', 'failureHandling'] as const;
const HEADER_FIELDS = ['name', 'value'];
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
// The delivery's own headers (spec 6.1) and those the transport sets: a webhook cannot replace them.
const RESERVED_HEADER = /^(content-type|content-length|host|user-agent|connection|transfer-encoding|te|upgrade|expect|keep-alive|x-service-.*|x-hookrelay-.*)$/i;

/** Checks a create body; omitted policy fields take the defaults of spec 6.4. */
export function validateCreateBody(input: unknown): Checked<WebhookCreate> {
  if (!isPlainObject(input)) return refuse('body', 'must be a JSON object');
  const problems = unknownFields(input, CREATE_FIELDS);
  for (const required of ['name', 'triggers', 'endpoint'] as const) {
    if (input[required] === undefined) problems.push({ field: required, message: 'is required' });
  }
  const name = input.name === undefined ? undefined : checkName(input.name, problems);
  const triggers = input.triggers === undefined ? undefined : checkTriggers(input.triggers, problems);
  const endpoint = input.endpoint === undefined ? undefined : checkEndpoint(input.endpoint, problems);
  const customHeaders = input.customHeaders === undefined ? [] : checkHeaders(input.customHeaders, problems);
  if (input.signingEnabled !== undefined && typeof input.signingEnabled !== 'boolean') problems.push({ field: 'signingEnabled', message: 'must be true or false' });
  const retryPolicy = input.retryPolicy === undefined ? undefined : collect(validateRetryPolicy(input.retryPolicy), problems);
  const failureHandling = input.failureHandling === undefined ? undefined : collect(validateFailureHandling(input.failureHandling), problems);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      name: name!,
      triggers: triggers!,
      endpoint: endpoint!,
      customHeaders: customHeaders!,
      signingEnabled: input.signingEnabled === true,
      retryPolicy: retryPolicy ?? collect(validateRetryPolicy({}), problems)!,
      failureHandling: failureHandling ?? collect(validateFailureHandling({}), problems)!,
    },
  };
}

/** Checks a PATCH body against the stored policies (fields not given keep their values). */
export function validatePatchBody(input: unknown, current: { retryPolicy: RetryPolicy; failureHandling: FailureHandling }): Checked<WebhookPatch> {
  if (!isPlainObject(input)) return refuse('body', 'must be a JSON object');
  const problems = unknownFields(input, PATCH_FIELDS);
  const patch: WebhookPatch = {};
  if (input.name !== undefined) patch.name = checkName(input.name, problems);
  if (input.triggers !== undefined) patch.triggers = checkTriggers(input.triggers, problems);
  if (input.endpoint !== undefined) patch.endpoint = checkEndpoint(input.endpoint, problems);
  if (input.customHeaders !== undefined) patch.customHeaders = checkHeaders(input.customHeaders, problems);
  if (input.status !== undefined) {
    // Spec 3: suspended is never set by a caller.
    if (input.status === 'active' || input.status === 'disabled') patch.status = input.status;
    else problems.push({ field: 'status', message: `must be "active" or "disabled" (got ${show(input.status)})` });
  }
  if (input.retryPolicy !== undefined) patch.retryPolicy = collect(validateRetryPolicy(input.retryPolicy, current.retryPolicy), problems);
  if (input.failureHandling !== undefined) patch.failureHandling = collect(validateFailureHandling(input.failureHandling, current.failureHandling), problems);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: patch };
}

function checkName(value: unknown, problems: FieldProblem[]): string | undefined {
  const { min, max } = WEBHOOK_BOUNDS.name;
  if (typeof value !== 'string' || value.length < min || value.length > max) {
    problems.push({ field: 'name', message: `must be a string of ${min} to ${max} characters (got ${describeLength(value)})` });
    return undefined;
  }
  return value;
}

function checkTriggers(value: unknown, problems: FieldProblem[]): string[] | undefined {
  const { min, max } = WEBHOOK_BOUNDS.triggers;
  if (!Array.isArray(value) || value.length < min || value.length > max) {
    problems.push({ field: 'triggers', message: `must be an array of ${min} to ${max} trigger names (got ${describeLength(value)})` });
    return undefined;
  }
  const before = problems.length;
  const seen = new Set<string>();
  value.forEach((item, i) => {
    if (typeof item !== 'string') problems.push({ field: `triggers[${i}]`, message: 'must be a string' });
    else if (!isKnownTrigger(item)) problems.push({ field: 'triggers', message: `${show(item)} is not in the catalogue (GET /webhooks/triggers)` });
    else if (seen.has(item)) problems.push({ field: `triggers[${i}]`, message: `repeats ${item}` });
    else seen.add(item);
  });
  return problems.length === before ? (value as string[]) : undefined;
}

/** Shape only: the SSRF rule of the chosen mode is applied where names can be resolved. */
function checkEndpoint(value: unknown, problems: FieldProblem[]): string | undefined {
  const max = WEBHOOK_BOUNDS.endpointMaxLength;
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    problems.push({ field: 'endpoint', message: `must be a URL of at most ${max} characters (got ${describeLength(value)})` });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push({ field: 'endpoint', message: 'is not a valid absolute URL' });
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push({ field: 'endpoint', message: `must be an https URL (got ${show(url.protocol)})` });
    return undefined;
  }
  if (url.username !== '' || url.password !== '') {
    problems.push({ field: 'endpoint', message: 'must not carry a user name or password; use customHeaders for credentials' });
    return undefined;
  }
  return url.href;
}

function checkHeaders(value: unknown, problems: FieldProblem[]): CustomHeaderInput[] | undefined {
  const max = WEBHOOK_BOUNDS.customHeaders;
  if (!Array.isArray(value) || value.length > max) {
    problems.push({ field: 'customHeaders', message: `must be an array of at most ${max} {name, value} objects (got ${describeLength(value)})` });
    return undefined;
  }
  const before = problems.length;
  const seen = new Set<string>();
  const headers: CustomHeaderInput[] = [];
  value.forEach((item, i) => {
    const field = `customHeaders[${i}]`;
    if (!isPlainObject(item)) return problems.push({ field, message: 'must be an object {name, value}' });
    for (const key of Object.keys(item)) if (!HEADER_FIELDS.includes(key)) problems.push({ field: `${field}.${key}`, message: 'is not a recognised field (known: name, value)' });
    const { min, max: maxName } = WEBHOOK_BOUNDS.headerName;
    const name = item.name;
    if (typeof name !== 'string' || name.length < min || name.length > maxName || !HEADER_NAME.test(name)) {
      problems.push({ field: `${field}.name`, message: `must be an HTTP header name of ${min} to ${maxName} characters` });
    } else if (RESERVED_HEADER.test(name)) {
      problems.push({ field: `${field}.name`, message: `${name} is set by the delivery itself (spec 6.1) and cannot be replaced` });
    } else if (seen.has(name.toLowerCase())) {
      problems.push({ field: `${field}.name`, message: `repeats ${name}` });
    } else {
      seen.add(name.toLowerCase());
    }
    const headerValue = item.value;
    // Never echo the value: it is a credential.
    if (typeof headerValue !== 'string' || headerValue.length > WEBHOOK_BOUNDS.headerValueMax) {
      problems.push({ field: `${field}.value`, message: `must be a string of at most ${WEBHOOK_BOUNDS.headerValueMax} characters` });
    } else if (!HEADER_VALUE.test(headerValue)) {
      problems.push({ field: `${field}.value`, message: 'must be printable ASCII (no line breaks or control characters)' });
    }
    if (typeof name === 'string' && typeof headerValue === 'string') headers.push({ name, value: headerValue });
    return undefined;
  });
  return problems.length === before ? headers : undefined;
}

function collect<T>(checked: Checked<T>, problems: FieldProblem[]): T | undefined {
  if (checked.ok) return checked.value;
  problems.push(...checked.problems);
  return undefined;
}

function unknownFields(input: Record<string, unknown>, known: readonly string[]): FieldProblem[] {
  return Object.keys(input)
    .filter((key) => !known.includes(key))
    .map((key) => ({ field: key.slice(0, 64), message: `is not a recognised field (known: ${known.join(', ')})` }));
}

function refuse<T>(field: string, message: string): Checked<T> {
  return { ok: false, problems: [{ field, message }] };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeLength(value: unknown): string {
  if (typeof value === 'string') return `${value.length} characters`;
  if (Array.isArray(value)) return `${value.length} items`;
  return value === null ? 'null' : typeof value;
}

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value) ?? typeof value;
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  } catch {
    return typeof value;
  }
}
