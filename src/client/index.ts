/**
 * `hookrelay/client`: the service client `hookrelay webhooks` and `hookrelay reconcile` use, for
 * your own code (docs/library.md). One client per API key: it paces by RateLimit-Remaining and
 * its own count (spec 8), waits out Retry-After, retries with backoff what surely did not land,
 * and scrubs the key from every answer and error.
 */
import { createApiClient, type ApiClientOptions, type ApiAnswer, type CallOptions, type Method, type WaitNotice } from '../service/api-client.js';
import { createSodApi, createTrustCenterApi, type SodApi, type TrustCenterApi } from '../service/trust-center-api.js';
import { createWebhooksApi, type WebhooksApi } from '../service/webhooks-api.js';

export { ServiceError, type ServiceErrorCode, type ErrorEnvelope } from '../service/service-error.js';
export type { Webhook, Delivery, Attempt, TriggerEntry } from '../service/resources.js';
export type { CreateWebhookBody, Created, Read } from '../service/webhooks-api.js';
export type { CursorPage } from '../service/cursor-pages.js';
export type {
  AccessEvent, AccessEventFilter, AccessRequest, AccessRequestDetail, AccessRequestStatus, ApproveBody, ApproveResult,
  RejectBody, SodViolation, SodViolationFilter, TrustCenterResource, VisitorToken,
} from '../service/trust-center-types.js';
export type { ApiAnswer, CallOptions, Method, WaitNotice, WebhooksApi, TrustCenterApi, SodApi };

/** What `createServiceClient` takes: the base URL (with /v1) and the key; the rest has defaults (docs/library.md). */
export type ServiceClientOptions = Omit<ApiClientOptions, 'pacer' | 'proxy'>;

export interface ServiceClient {
  /** Spec 4.2, 4.3, 4.4: the webhook API. */
  webhooks: WebhooksApi;
  /** Spec 2.10, 4.2 to 4.4: access requests, resources, visitor tokens, access events. */
  trustCenter: TrustCenterApi;
  /** Spec 4.4: segregation-of-duties violations. */
  sod: SodApi;
  /** Any other endpoint, paced and checked the same way: the 2xx envelope and its `data`. */
  call(method: Method, path: string, options?: CallOptions): Promise<ApiAnswer>;
  /** Closes the connections; the client is not used after. */
  close(): Promise<void>;
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  if (typeof options?.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) throw new TypeError('createServiceClient: baseUrl must be the API\'s http(s) base URL, with /v1');
  if (typeof options.apiKey !== 'string' || options.apiKey.length === 0) throw new TypeError('createServiceClient: apiKey is required');
  const client = createApiClient(options);
  return {
    webhooks: createWebhooksApi(client),
    trustCenter: createTrustCenterApi(client),
    sod: createSodApi(client),
    call: client.call,
    close: client.close,
  };
}
