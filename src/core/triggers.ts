/** The trigger catalogue (spec 6.2, entry shape 2.11) and sample `data` for the sender. */
import type { AccessChannel, DecidedBy, TriggerName, TriggerPayloads } from './envelope.js';
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
  /** The `data` fields spec 6.2 lists; empty where the spec does not show them. */
  dataFields: readonly string[];
}

// Spec 6.2 states only that the four Trust Center triggers are premium; the other three are
// listed without a tier, and are taken as core here.
export const TRIGGER_CATALOGUE: readonly TriggerCatalogueEntry[] = Object.freeze([
  entry('trustcenter.access_requested', 'premium', 'A Trust Center access request is waiting for a person to decide it.', ['accessRequestId']),
  entry('trustcenter.access_approved', 'premium', 'A Trust Center access request is approved.', ['accessRequestId', 'visitorTokenId', 'decidedBy']),
  entry('trustcenter.access_rejected', 'premium', 'A Trust Center access request is rejected.', ['accessRequestId', 'decidedBy']),
  entry('trustcenter.resource_downloaded', 'premium', 'A Trust Center document is read by a visitor.', [
    'accessEventId', 'resourceId', 'visitorTokenId', 'channel', 'watermarked', 'occurredAt',
  ]),
  entry('control.drift_detected', 'core', 'Control drift is detected (named only as a trigger; data not shown).', []),
  entry('vendor.rating_dropped', 'core', 'A vendor rating dropped (named only as a trigger; data not shown).', []),
  entry('sod.violation_detected', 'core', 'A segregation-of-duties finding is detected (data not shown).', []),
]);

function entry(trigger: TriggerName, tier: TriggerTier, description: string, dataFields: string[]): TriggerCatalogueEntry {
  return Object.freeze({ trigger, description, tier, status: 'active' as const, entitled: true, dataFields: Object.freeze(dataFields) });
}

export const DECIDED_BY_VALUES: readonly DecidedBy[] = ['reviewer', 'access_rule', 'api_client'];

/** Channels of a document access event (spec 2.10). */
export const ACCESS_CHANNELS: readonly AccessChannel[] = ['detail', 'viewer', 'download', 'bulk_zip', 'external_link'];

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
 * Sample `data` for a trigger: identifiers and non-identifying facts only (spec 6.1), with the
 * fields of spec 6.2. Triggers whose data the spec does not show get an empty object.
 */
export function sampleData<T extends TriggerName>(trigger: T, sources: SampleSources): TriggerPayloads[T] {
  const uuid = sources.uuid ?? (() => uuidFromRandom(sources.random));
  const pick = <V>(values: readonly V[]): V => values[Math.floor(sources.random() * values.length) % values.length]!;
  const data: { [K in TriggerName]: () => TriggerPayloads[K] } = {
    'trustcenter.access_requested': () => ({ accessRequestId: uuid() }),
    'trustcenter.access_approved': () => ({ accessRequestId: uuid(), visitorTokenId: uuid(), decidedBy: pick(DECIDED_BY_VALUES) }),
    'trustcenter.access_rejected': () => ({ accessRequestId: uuid(), decidedBy: pick(DECIDED_BY_VALUES) }),
    'trustcenter.resource_downloaded': () => ({
      accessEventId: uuid(),
      resourceId: uuid(),
      visitorTokenId: uuid(),
      channel: pick(ACCESS_CHANNELS),
      watermarked: sources.random() < 0.5,
      occurredAt: new Date(sources.now()).toISOString(),
    }),
    'control.drift_detected': () => ({}),
    'vendor.rating_dropped': () => ({}),
    'sod.violation_detected': () => ({}),
  };
  return data[trigger]() as TriggerPayloads[T];
}
