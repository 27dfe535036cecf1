/**
 * The `data` of each trigger of spec 6.2, as JSON Schema: the one source of the kit's types
 * (payload-types.ts, generated), of `send`'s and `emulate`'s bodies and of the drift warnings.
 * Spec 6.2 names the fields; their types are those of the records they point at (spec 2.10).
 * Every object allows fields it does not name: `/v1` only adds (spec 9.2).
 */
import type { JsonSchema } from './json-schema.js';

const id = (description: string): JsonSchema => ({ type: 'string', format: 'uuid', description });

export const DECIDED_BY = {
  title: 'DecidedBy',
  type: 'string',
  enum: ['reviewer', 'access_rule', 'api_client'],
  description: 'Who decided the request (spec 6.2): a person in the app, an auto-approve or auto-deny rule at submission, or an API key through the approve or reject endpoints.',
} as const satisfies JsonSchema;

export const ACCESS_CHANNEL = {
  title: 'AccessChannel',
  type: 'string',
  enum: ['detail', 'viewer', 'download', 'bulk_zip', 'external_link'],
  description: 'How the document was served (spec 2.10, document access event).',
} as const satisfies JsonSchema;

const known = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  additionalProperties: true,
});

const NOT_SHOWN = 'Spec 6.2 names no data fields for this trigger: data is open, any fields, and none is checked.';

export const DATA_SCHEMAS = {
  'trustcenter.access_requested': known({
    accessRequestId: id('The access request waiting for a decision: GET /trust-center/access-requests/{id}.'),
  }),
  'trustcenter.access_approved': known({
    accessRequestId: id('The approved access request.'),
    visitorTokenId: id('The visitor token the approval minted: GET /trust-center/visitor-tokens.'),
    decidedBy: DECIDED_BY,
  }),
  'trustcenter.access_rejected': known({
    accessRequestId: id('The rejected access request.'),
    decidedBy: DECIDED_BY,
  }),
  'trustcenter.resource_downloaded': known({
    accessEventId: id('The document access event: GET /trust-center/access-events.'),
    resourceId: id('The document that was read.'),
    visitorTokenId: id('The visitor token it was read with.'),
    channel: ACCESS_CHANNEL,
    watermarked: { type: 'boolean', description: 'Whether the served copy was watermarked.' },
    occurredAt: { type: 'string', format: 'date-time', description: 'When the document was read.' },
  }),
  'control.drift_detected': { type: 'object', description: `${NOT_SHOWN} The spec names it only as a trigger.`, additionalProperties: true },
  'vendor.rating_dropped': { type: 'object', description: `${NOT_SHOWN} The spec names it only as a trigger.`, additionalProperties: true },
  'sod.violation_detected': {
    type: 'object',
    description: `${NOT_SHOWN} hookrelay emulate sends sodViolationId, its own choice; a field the service may not send is never required.`,
    properties: { sodViolationId: id('Not in the spec: the id hookrelay emulate sends, of the violation GET /sod/violations lists.') },
    additionalProperties: true,
  },
} as const satisfies Record<string, JsonSchema>;

export type SchemaTrigger = keyof typeof DATA_SCHEMAS;
