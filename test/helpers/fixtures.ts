import { createHash, randomUUID } from 'node:crypto';
import type { AttemptInput, NewDelivery } from '../../src/store/store.js';

export function makeDelivery(overrides: Partial<NewDelivery> = {}): NewDelivery {
  const id = overrides.id ?? randomUUID();
  const rawBody =
    overrides.rawBody ??
    Buffer.from(JSON.stringify({ id, type: 'trustcenter.access_requested', apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org', data: { accessRequestId: 'ar' } }));
  return {
    id,
    trigger: 'trustcenter.access_requested',
    apiVersion: '2026-06-01',
    apiVersionKnown: true,
    receivedAt: 1_763_719_200_000,
    rawHeaders: ['Content-Type', 'application/json', 'X-Service-Delivery', id],
    signature: 'valid',
    secretIndex: 0,
    signatureTimestamp: 1_763_719_200,
    ...overrides,
    rawBody,
  };
}

export function attemptFor(delivery: Pick<NewDelivery, 'id' | 'trigger' | 'rawBody'> | null, overrides: Partial<AttemptInput> = {}): AttemptInput {
  const body = delivery?.rawBody ?? Buffer.alloc(0);
  return {
    deliveryId: delivery?.id ?? null,
    trigger: delivery?.trigger ?? null,
    receivedAt: 1_763_719_200_000,
    finishedAt: 1_763_719_200_001,
    attemptHeader: 1,
    signatureTimestamp: 1_763_719_200,
    bodySha256: createHash('sha256').update(body).digest('hex'),
    bodyBytes: body.length,
    outcome: 'accepted',
    status: 200,
    reason: null,
    retryAfter: null,
    ...overrides,
  };
}
