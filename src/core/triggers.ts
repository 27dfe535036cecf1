/** The trigger catalogue (spec 6.2, entry shape 2.11) and sample `data` for the sender. */
import type { AccessChannel, DecidedBy, TriggerName, TriggerPayloads } from './envelope.js';
import { ACCESS_CHANNEL, DATA_SCHEMAS, DECIDED_BY } from './schemas/data-schemas.js';
import type { JsonSchema } from './schemas/json-schema.js';
import { sampleFromSchema } from './schemas/sample-data.js';
import { uuidFromRandom, type RandomSource } from './seeded-random.js';

export type TriggerTier = 'core' | 'premium';

/** A catalogue entry as GET /webhooks/triggers returns it (spec 2.11), plus the data fields of 6.2. */
export interface TriggerCatalogueEntry {
  trigger: TriggerName;
  description: string;
  tier: TriggerTier;
  status: 'active';
  /** The local sender may send every trigger. */
  entitled: boolean;
  /** The `data` fields spec 6.2 lists (the required ones of its schema); empty where the spec does not show them. */
  dataFields: readonly string[];
}

// Spec 6.2 states only that the four Trust Center triggers are premium; the other three are
// listed without a tier, and are taken as core here.
export const TRIGGER_CATALOGUE: readonly TriggerCatalogueEntry[] = Object.freeze([
  entry('trustcenter.access_requested', 'premium', 'A Trust Center access request is waiting for a person to decide it.'),
  entry('trustcenter.access_approved', 'premium', 'A Trust Center access request is approved.'),
  entry('trustcenter.access_rejected', 'premium', 'A Trust Center access request is rejected.'),
  entry('trustcenter.resource_downloaded', 'premium', 'A Trust Center document is read by a visitor.'),
  entry('control.drift_detected', 'core', 'Control drift is detected (named only as a trigger; data not shown).'),
  entry('vendor.rating_dropped', 'core', 'A vendor rating dropped (named only as a trigger; data not shown).'),
  entry('sod.violation_detected', 'core', 'A segregation-of-duties finding is detected (data not shown).'),
]);

function entry(trigger: TriggerName, tier: TriggerTier, description: string): TriggerCatalogueEntry {
  const schema: JsonSchema = DATA_SCHEMAS[trigger];
  const dataFields = schema.required ?? [];
  return Object.freeze({ trigger, description, tier, status: 'active' as const, entitled: true, dataFields: Object.freeze([...dataFields]) });
}

export const DECIDED_BY_VALUES: readonly DecidedBy[] = DECIDED_BY.enum;

/** Channels of a document access event (spec 2.10). */
export const ACCESS_CHANNELS: readonly AccessChannel[] = ACCESS_CHANNEL.enum;

/** True when `name` is one of the seven triggers of spec 6.2. */
export function isKnownTrigger(name: string): name is TriggerName {
  return TRIGGER_CATALOGUE.some((e) => e.trigger === name);
}

export interface SampleSources {
  random: RandomSource;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Defaults to a UUID drawn from `random`. */
  uuid?: () => string;
}

/**
 * Sample `data` for a trigger, drawn from its schema (core/schemas/data-schemas.ts): identifiers
 * and non-identifying facts only (spec 6.1), with the fields of spec 6.2. Triggers whose data the
 * spec does not show get an empty object.
 */
export function sampleData<T extends TriggerName>(trigger: T, sources: SampleSources): TriggerPayloads[T] {
  const uuid = sources.uuid ?? (() => uuidFromRandom(sources.random));
  return sampleFromSchema(DATA_SCHEMAS[trigger], { uuid, random: sources.random, now: sources.now }) as TriggerPayloads[T];
}
