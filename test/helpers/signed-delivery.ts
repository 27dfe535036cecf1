import { randomUUID } from 'node:crypto';
import { sign } from '../../src/core/signature/sign.js';

export const TEST_SECRET = 'whsec_test_0123456789abcdef';
export const T0 = 1_763_719_200; // 2025-11-21T10:00:00Z in unix seconds

export interface SignedRequest {
  id: string;
  headers: Record<string, string>;
  body: Buffer;
}

export function envelopeBody(id: string, trigger = 'trustcenter.access_requested', extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({ id, type: trigger, apiVersion: '2026-06-01', createdAt: '2026-11-21T10:00:00Z', organizationId: 'org_1', data: { accessRequestId: 'ar_1' }, ...extra }),
  );
}

/** A delivery as the service sends it (spec 6.1), signed over its raw bytes (spec 6.3). */
export function signedRequest(options: { secret?: string; id?: string; trigger?: string; t?: number; body?: Buffer; attempt?: number } = {}): SignedRequest {
  const id = options.id ?? randomUUID();
  const trigger = options.trigger ?? 'trustcenter.access_requested';
  const body = options.body ?? envelopeBody(id, trigger);
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Service-Webhook/1',
      'x-service-event': trigger,
      'x-service-delivery': id,
      'x-service-delivery-attempt': String(options.attempt ?? 1),
      'x-service-api-version': '2026-06-01',
      'x-service-signature': sign(options.secret ?? TEST_SECRET, body, options.t ?? T0),
    },
  };
}
