/** What the emulator's routes and delivery engine share; built once by src/app/build-emulator.ts. */
import type Database from 'better-sqlite3';
import type { LookupFunction } from 'node:net';
import type { Plan } from '../core/emulator/trigger-catalogue.js';
import type { EmulatorDeliveries } from './emulator-deliveries.js';
import type { SsrfMode } from './endpoint-rule.js';
import type { KeyMaterial } from './key-material.js';
import type { SecretBox } from './secret-box.js';
import type { TrustCenterStore } from './trust-center-store.js';
import type { WebhookStore } from './webhook-store.js';

export interface EmulatorContext {
  db: Database.Database;
  webhooks: WebhookStore;
  deliveries: EmulatorDeliveries;
  /** Trust Center and SoD records (spec 2.10, 4.4). */
  trustCenter: TrustCenterStore;
  box: SecretBox;
  keys: KeyMaterial;
  plan: Plan;
  webhookCap: number;
  ssrf: SsrfMode;
  /** Name resolution for the endpoint rule (tests inject one); default node:dns. */
  lookup?: LookupFunction;
  /** Milliseconds since the epoch. */
  now(): number;
  /** Tells the delivery engine that a delivery became due or a webhook changed. */
  wake(): void;
}

/** The AAD of a sealed value: the webhook and the field, so a sealed value opens only where it was sealed. */
export const sealContext = {
  secret: (webhookId: string) => `webhook:${webhookId}:signing-secret`,
  header: (webhookId: string, name: string) => `webhook:${webhookId}:header:${name.toLowerCase()}`,
};
