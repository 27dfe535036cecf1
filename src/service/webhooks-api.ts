/** The webhook endpoints of spec 4.2 and 4.3, typed: each returns what it read and the raw `data` (for --json). */
import type { ApiClient } from './api-client.js';
import { cursorPages, type CursorPage } from './cursor-pages.js';
import { listOf, readDelivery, readTrigger, readWebhook, type Delivery, type TriggerEntry, type Webhook } from './resources.js';
import { ServiceError } from './service-error.js';

export interface Read<T> {
  value: T;
  /** The API's `data`, exactly as received. */
  data: unknown;
}

/** Spec 8: 1 to 100 for webhook deliveries. */
export const MAX_DELIVERIES_PAGE = 100;

const webhookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

export interface CreateWebhookBody {
  name: string;
  triggers: string[];
  endpoint: string;
  customHeaders?: Array<{ name: string; value: string }>;
  signingEnabled?: boolean;
  retryPolicy?: unknown;
  failureHandling?: unknown;
}

export interface Created {
  webhook: Webhook;
  /** Present once, when signing was asked for. Never printed unless --print-secret. */
  signingSecret: string | null;
  data: unknown;
}

export function createWebhooksApi(client: ApiClient) {
  return {
    async list(): Promise<Read<Webhook[]>> {
      const answer = await client.call('GET', '/webhooks');
      return { value: listOf(answer.data, 'webhook list', readWebhook), data: answer.data };
    },
    async get(id: string): Promise<Read<Webhook>> {
      const answer = await client.call('GET', webhookPath(id));
      return { value: readWebhook(answer.data), data: answer.data };
    },
    async create(body: CreateWebhookBody): Promise<Created> {
      const answer = await client.call('POST', '/webhooks', { body });
      const data = answer.data as Record<string, unknown> | null;
      if (data === null || typeof data !== 'object') throw new ServiceError('BAD_RESPONSE', 'POST /webhooks: "data" must be {webhook, signingSecret} (spec 4.3)');
      const webhook = readWebhook(data.webhook);
      const secret = typeof data.signingSecret === 'string' && data.signingSecret.length > 0 ? data.signingSecret : null;
      if (body.signingEnabled === true && secret === null) {
        throw new ServiceError('BAD_RESPONSE', `POST /webhooks: webhook ${webhook.id} was created with signing on, but the answer carries no signingSecret (spec 4.3): the secret is lost; delete and recreate the webhook`);
      }
      return { webhook, signingSecret: secret, data };
    },
    async update(id: string, body: Record<string, unknown>): Promise<Read<Webhook>> {
      const answer = await client.call('PATCH', webhookPath(id), { body });
      return { value: readWebhook(answer.data), data: answer.data };
    },
    async remove(id: string): Promise<Read<boolean>> {
      const answer = await client.call('DELETE', webhookPath(id));
      const deleted = (answer.data as { deleted?: unknown } | null)?.deleted;
      return { value: deleted === true, data: answer.data };
    },
    deliveries(id: string, options: { limit?: number; startCursor?: string | null } = {}): AsyncGenerator<CursorPage<Delivery>> {
      return cursorPages(client, {
        path: `${webhookPath(id)}/deliveries`,
        limit: Math.min(MAX_DELIVERIES_PAGE, Math.max(1, options.limit ?? MAX_DELIVERIES_PAGE)),
        startCursor: options.startCursor ?? null,
        read: readDelivery,
        idOf: (d) => d.id,
      });
    },
    /** The emulator's path (the spec leaves replay's open): POST /webhooks/{id}/deliveries/{deliveryId}/replay. */
    async replay(id: string, deliveryId: string): Promise<Read<Delivery>> {
      const answer = await client.call('POST', `${webhookPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/replay`);
      return { value: readDelivery(answer.data), data: answer.data };
    },
    async triggers(): Promise<Read<TriggerEntry[]>> {
      const answer = await client.call('GET', '/webhooks/triggers');
      return { value: listOf(answer.data, 'trigger catalogue', readTrigger), data: answer.data };
    },
  };
}

export type WebhooksApi = ReturnType<typeof createWebhooksApi>;
