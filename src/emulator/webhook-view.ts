/** A stored webhook as the API shows it (spec 2.11): hints only, never the secret or a header value. */
import type { StoredWebhook } from './webhook-store.js';

export function webhookView(w: StoredWebhook) {
  return {
    id: w.id,
    organizationId: w.organizationId,
    name: w.name,
    triggers: w.triggers,
    endpoint: w.endpoint,
    status: w.status,
    apiVersion: w.apiVersion,
    customHeaders: w.customHeaders.map((h) => ({ name: h.name, valueHint: h.hint })),
    signing: { enabled: w.signingEnabled, secretHint: w.secretHint },
    retryPolicy: w.retryPolicy,
    failureHandling: w.failureHandling,
    consecutiveFailures: w.consecutiveFailures,
    lastSuccessAt: w.lastSuccessAt,
    lastFailureAt: w.lastFailureAt,
    disabledReason: w.disabledReason,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}
