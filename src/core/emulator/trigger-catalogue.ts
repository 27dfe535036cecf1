/** GET /webhooks/triggers (spec 2.11, 6.2): the catalogue as a plan sees it. */
import { TRIGGER_CATALOGUE, type TriggerTier } from '../triggers.js';
import type { TriggerName } from '../envelope.js';

/** The emulated organization's plan: `core` is not entitled to the premium (Trust Center) triggers. */
export type Plan = 'core' | 'premium';

export interface CatalogueEntry {
  trigger: TriggerName;
  description: string;
  tier: TriggerTier;
  status: 'active';
  entitled: boolean;
}

/** The catalogue entries of spec 2.11, `entitled` per `plan`. */
export function catalogueFor(plan: Plan): CatalogueEntry[] {
  return TRIGGER_CATALOGUE.map((e) => ({ trigger: e.trigger, description: e.description, tier: e.tier, status: e.status, entitled: isEntitled(e.tier, plan) }));
}

export function isEntitled(tier: TriggerTier, plan: Plan): boolean {
  return tier === 'core' || plan === 'premium';
}

/**
 * Spec 4.3: every trigger must exist (else 422 naming `triggers`) and be on the plan (else 403).
 * Returns the names absent from the catalogue and those present but not entitled.
 */
export function judgeTriggers(names: readonly string[], plan: Plan): { unknown: string[]; notEntitled: string[] } {
  const unknown: string[] = [];
  const notEntitled: string[] = [];
  for (const name of names) {
    const entry = TRIGGER_CATALOGUE.find((e) => e.trigger === name);
    if (entry === undefined) unknown.push(name);
    else if (!isEntitled(entry.tier, plan)) notEntitled.push(name);
  }
  return { unknown, notEntitled };
}
