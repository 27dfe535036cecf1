/**
 * The trigger schemas as an OpenAPI 3.1 document with a `webhooks` section (one POST per trigger:
 * the headers of spec 6.1 and 6.3, the body schema, the answers of 6.4), for code generators. The
 * schemas go in `components`, named as the kit's types are (payload-types.ts), so a generator's
 * names match hookrelay's. `KnownEvent` is every trigger's body, discriminated on `type`.
 */
import { CURRENT_API_VERSION } from '../envelope-check.js';
import { SIGNATURE_HEADER_NAME } from '../signature/signature-header.js';
import { TRIGGER_CATALOGUE } from '../triggers.js';
import { DATA_SCHEMAS, type SchemaTrigger } from './data-schemas.js';
import { SCHEMA_DIALECT, envelopeSchema } from './envelope-schema.js';
import type { JsonSchema } from './json-schema.js';
import { typeNameOf } from './type-names.js';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** `schema` with each titled property schema moved into `components` and referenced. */
function componentized(schema: JsonSchema, components: Json): Json {
  // The dialect is said once, by the document's jsonSchemaDialect.
  const { $schema: _dialect, properties, ...rest } = schema;
  if (properties === undefined) return { ...rest };
  const moved: Json = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property.title !== undefined && property.type !== 'object') {
      components[property.title] = componentized(property, components);
      moved[name] = ref(property.title);
    } else {
      moved[name] = componentized(property, components);
    }
  }
  return { ...rest, properties: moved };
}

const header = (name: string, required: boolean, description: string, schema: Json): Json => ({ name, in: 'header', required, description, schema });

function operation(trigger: SchemaTrigger, components: Json): Json {
  const entry = TRIGGER_CATALOGUE.find((e) => e.trigger === trigger)!;
  const name = typeNameOf(trigger);
  components[`${name}Data`] = componentized(DATA_SCHEMAS[trigger], components);
  const body = componentized(envelopeSchema(trigger), components);
  // Titled as the component is named: generators name a type by its title.
  components[`${name}Event`] = { ...body, title: `${name}Event`, properties: { ...(body.properties as Json), data: ref(`${name}Data`) } };
  return {
    post: {
      operationId: name[0]!.toLowerCase() + name.slice(1),
      summary: entry.description,
      description: `Sent to the webhook's endpoint when ${trigger} fires (spec 6.1, 6.2; tier ${entry.tier}). Verify x-service-signature over the raw body before parsing it (spec 6.3), dedupe on x-service-delivery (spec 6.4 rule 6), and ignore fields you do not know (spec 9.2).`,
      tags: [entry.tier],
      parameters: [
        header('x-service-event', true, 'The trigger that fired; equal to the body `type`.', { type: 'string', const: trigger }),
        header('x-service-delivery', true, 'The delivery id; equal to the body `id`, identical on every attempt (the dedupe key).', { type: 'string', minLength: 1 }),
        header('x-service-delivery-attempt', true, '1 on the first attempt, 2 on the first retry, and so on.', { type: 'integer', minimum: 1 }),
        header('x-service-api-version', true, 'The payload schema version (spec 9.5).', { type: 'string', examples: [CURRENT_API_VERSION] }),
        header(SIGNATURE_HEADER_NAME, false, 'Only when signing is on (spec 6.3): `t=<unix-seconds>,v1=<hex>`, v1 the hex HMAC-SHA256, keyed by the signing secret, of `<t>.<raw request body>`; every attempt is signed afresh.', { type: 'string' }),
        header('user-agent', true, 'Service-Webhook/1', { type: 'string', examples: ['Service-Webhook/1'] }),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref(`${name}Event`) } } },
      responses: {
        '2XX': { description: 'Delivered: only a 2xx is success, and the response body is never read (spec 6.4). Answer within 10 seconds.' },
        '410': { description: 'Fails at once and suspends the webhook unless disableOnGone is false.' },
        '429': { description: 'Retried, after Retry-After if sent.' },
        default: { description: 'Retried (timeout, network, 408, 429, 5xx other than 501 and 505) or failed at once, by the classes of spec 6.4.' },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the deliveries of `triggers` (every one by default); plain data, to print as JSON. */
export function openApiDocument(version: string, triggers: readonly SchemaTrigger[] = Object.keys(DATA_SCHEMAS) as SchemaTrigger[]): Json {
  const components: Json = {};
  const webhooks: Json = {};
  for (const trigger of triggers) webhooks[trigger] = operation(trigger, components);
  components.KnownEvent = {
    description: 'The body of a delivery of any trigger this version knows, discriminated on `type`. A trigger added later (spec 9.2) is none of these.',
    oneOf: triggers.map((t) => ref(`${typeNameOf(t)}Event`)),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(triggers.map((t) => [t, `#/components/schemas/${typeNameOf(t)}Event`])) },
  };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: SCHEMA_DIALECT,
    info: {
      title: 'Compliance and Vendor-Risk API: outbound webhooks',
      version: CURRENT_API_VERSION,
      description: `The deliveries of spec 6, one webhook per trigger of spec 6.2, as hookrelay ${version} reads them. Payload schema version ${CURRENT_API_VERSION}. Where the spec names no data fields, data is open and the schema says so.`,
    },
    tags: [
      { name: 'premium', description: 'Trust Center triggers: premium tier (spec 6.2).' },
      { name: 'core', description: 'Triggers spec 6.2 gives no tier, taken as core.' },
    ],
    webhooks,
    components: { schemas: components },
  };
}
