import { describe, expect, it } from 'vitest';
import { CURRENT_API_VERSION, parseSignatureHeader, sign, verify } from '../src/index.js';
import type { DeliveryEnvelope, ParseResult, VerifyResult } from '../src/index.js';

describe('package entry', () => {
  it('signs and verifies a delivery end to end', () => {
    const envelope: DeliveryEnvelope<'trustcenter.access_requested'> = {
      id: 'dlv_1',
      type: 'trustcenter.access_requested',
      apiVersion: CURRENT_API_VERSION,
      createdAt: '2026-01-01T00:00:00Z',
      organizationId: 'org_1',
      data: { accessRequestId: 'ar_1' },
    };
    const body = Buffer.from(JSON.stringify(envelope));
    const t = 1_767_225_600;
    const header = sign('whsec_lib', body, t);

    const parsed: ParseResult = parseSignatureHeader(header);
    expect(parsed).toMatchObject({ ok: true, header: { timestamp: t, malformedV1: 0 } });

    const result: VerifyResult = verify(body, header, { secrets: ['whsec_new', 'whsec_lib'], nowSeconds: t + 30 });
    expect(result).toEqual({ ok: true, timestamp: t, secretIndex: 1, skewSeconds: -30 });

    const tampered = verify(Buffer.concat([body, Buffer.from(' ')]), header, { secrets: 'whsec_lib', nowSeconds: t });
    expect(tampered).toMatchObject({ ok: false, reason: 'mismatch' });
  });
});
