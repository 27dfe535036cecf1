/**
 * One table of deliveries and what every adapter must answer, shared by the core check
 * (verify-cases.test.ts) and each adapter in its real framework (express, fastify, fetch).
 */
import { sign } from '../../src/core/signature/sign.js';

export const SECRET = 'whsec_kit_primary_0123456789';
export const ROTATED = 'whsec_kit_rotated_9876543210';
/** The receivers' clock, unix seconds. */
export const NOW = 1_763_719_200;
export const nowMs = () => NOW * 1000;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export interface Sent {
  body: Buffer;
  headers: Record<string, string>;
}

export interface VerifyCase {
  name: string;
  /** The receiver's secrets. */
  secrets: string[];
  sent: Sent;
  expect:
    | { status: 200; secretIndex: number; type: string; notes?: boolean }
    | { status: 400; code: string; hint?: RegExp; webHint?: RegExp };
  /**
   * The body as sent is exactly JSON.stringify of its parse: it survives express.json() running
   * first. False also when a verifying re-serialisation is impossible (BOM, pretty, not JSON).
   */
  compact: boolean;
  /** express.json() refuses this body itself (not JSON): no hookrelay answer to check. */
  parserRejects?: boolean;
  /** What express.json() running first changes, when the rule of expectAfterJsonParser does not say it. */
  afterJsonParser?: VerifyCase['expect'];
}

export function envelope(id: string, type: string, data: Record<string, unknown> = { accessRequestId: 'ar_1', visitorTokenId: 'vt_1', decidedBy: 'reviewer' }): Record<string, unknown> {
  return { id, type, apiVersion: '2026-06-01', createdAt: '2025-11-21T10:00:00Z', organizationId: 'org_1', data };
}

/** A delivery as the service sends it: compact JSON, signed over its bytes at `t`. */
export function delivery(options: { id?: string; type?: string; t?: number; secret?: string; body?: Buffer; signedBody?: Buffer; headers?: Record<string, string | null> } = {}): Sent {
  const id = options.id ?? 'dlv_1';
  const type = options.type ?? 'trustcenter.access_approved';
  const body = options.body ?? Buffer.from(JSON.stringify(envelope(id, type)));
  const signature = sign(options.secret ?? SECRET, options.signedBody ?? body, options.t ?? NOW);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Service-Webhook/1',
    'x-service-event': type,
    'x-service-delivery': id,
    'x-service-delivery-attempt': '1',
    'x-service-api-version': '2026-06-01',
    'x-service-signature': signature,
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[name];
    else headers[name] = value;
  }
  return { body, headers };
}

const compactBody = (id: string, type = 'trustcenter.access_approved') => Buffer.from(JSON.stringify(envelope(id, type)));
const prettyBody = (id: string) => Buffer.from(JSON.stringify(envelope(id, 'trustcenter.access_approved'), null, 2));

export const VERIFY_CASES: VerifyCase[] = [
  { name: 'valid', secrets: [SECRET], sent: delivery({ id: 'c_valid' }), expect: { status: 200, secretIndex: 0, type: 'trustcenter.access_approved' }, compact: true },
  { name: 't exactly 300 s old (edge of the tolerance)', secrets: [SECRET], sent: delivery({ id: 'c_edge_past', t: NOW - 300 }), expect: { status: 200, secretIndex: 0, type: 'trustcenter.access_approved' }, compact: true },
  { name: 't exactly 300 s ahead (edge of the tolerance)', secrets: [SECRET], sent: delivery({ id: 'c_edge_future', t: NOW + 300 }), expect: { status: 200, secretIndex: 0, type: 'trustcenter.access_approved' }, compact: true },
  { name: 't 301 s old', secrets: [SECRET], sent: delivery({ id: 'c_old', t: NOW - 301 }), expect: { status: 400, code: 'TIMESTAMP_TOO_OLD', hint: /301 s behind/, webHint: /301 s behind/ }, compact: true },
  { name: 't 301 s ahead', secrets: [SECRET], sent: delivery({ id: 'c_future', t: NOW + 301 }), expect: { status: 400, code: 'TIMESTAMP_IN_FUTURE', hint: /301 s ahead/, webHint: /301 s ahead/ }, compact: true },
  {
    name: 'body re-serialised after signing (pretty-printed)',
    secrets: [SECRET],
    sent: delivery({ id: 'c_reser', body: prettyBody('c_reser'), signedBody: compactBody('c_reser') }),
    expect: { status: 400, code: 'SIGNATURE_MISMATCH', hint: /re-serialised with JSON\.stringify/, webHint: /raw request body/ },
    compact: false,
    // The parser's JSON.stringify undoes the pretty-printing: the bytes are again those signed.
    afterJsonParser: { status: 200, secretIndex: 0, type: 'trustcenter.access_approved' },
  },
  {
    name: 'a leading BOM, signed with it',
    secrets: [SECRET],
    sent: delivery({ id: 'c_bom', body: Buffer.concat([BOM, compactBody('c_bom')]) }),
    expect: { status: 200, secretIndex: 0, type: 'trustcenter.access_approved' },
    compact: false,
  },
  {
    name: 'a BOM stripped after signing',
    secrets: [SECRET],
    sent: delivery({ id: 'c_bom_lost', body: compactBody('c_bom_lost'), signedBody: Buffer.concat([BOM, compactBody('c_bom_lost')]) }),
    expect: { status: 400, code: 'SIGNATURE_MISMATCH', hint: /BOM/, webHint: /raw request body/ },
    compact: true,
  },
  { name: 'several secrets: signed with the second', secrets: [SECRET, ROTATED], sent: delivery({ id: 'c_rotated', secret: ROTATED }), expect: { status: 200, secretIndex: 1, type: 'trustcenter.access_approved' }, compact: true },
  { name: 'signed with a secret not configured', secrets: [SECRET], sent: delivery({ id: 'c_wrong', secret: ROTATED }), expect: { status: 400, code: 'SIGNATURE_MISMATCH', hint: /raw request body/, webHint: /raw request body/ }, compact: true },
  {
    name: 'the receiver’s secret has a trailing newline',
    secrets: [`${SECRET}\n`],
    sent: delivery({ id: 'c_ws' }),
    expect: { status: 400, code: 'SIGNATURE_MISMATCH', hint: /trailing newline.*strip whitespace/, webHint: /right secret/ },
    compact: true,
  },
  { name: 'no signature header', secrets: [SECRET], sent: delivery({ id: 'c_nosig', headers: { 'x-service-signature': null } }), expect: { status: 400, code: 'SIGNATURE_MISSING', hint: /no x-service-signature header/, webHint: /no x-service-signature header/ }, compact: true },
  { name: 'a malformed signature header', secrets: [SECRET], sent: delivery({ id: 'c_malformed', headers: { 'x-service-signature': 't=abc,v1=zz' } }), expect: { status: 400, code: 'SIGNATURE_MALFORMED', hint: /t=<unix seconds>/, webHint: /t=<unix seconds>/ }, compact: true },
  { name: 'x-service-delivery differs from the body id', secrets: [SECRET], sent: delivery({ id: 'c_idmix', headers: { 'x-service-delivery': 'other' } }), expect: { status: 400, code: 'DELIVERY_ID_MISMATCH' }, compact: true },
  { name: 'x-service-event differs from the body type', secrets: [SECRET], sent: delivery({ id: 'c_typemix', headers: { 'x-service-event': 'vendor.rating_dropped' } }), expect: { status: 400, code: 'EVENT_TYPE_MISMATCH' }, compact: true },
  { name: 'signed, but not JSON', secrets: [SECRET], sent: delivery({ id: 'c_notjson', body: Buffer.from('{"id":"c_notjson",') }), expect: { status: 400, code: 'INVALID_JSON' }, compact: false, parserRejects: true },
  {
    name: 'a trigger this version does not know (spec 9.2)',
    secrets: [SECRET],
    sent: delivery({ id: 'c_future_trigger', type: 'contract.renewal_due', body: compactBody('c_future_trigger', 'contract.renewal_due') }),
    expect: { status: 200, secretIndex: 0, type: 'contract.renewal_due' },
    compact: true,
  },
  {
    name: 'v1 in uppercase hex (accepted, noted)',
    secrets: [SECRET],
    sent: (() => {
      const sent = delivery({ id: 'c_upper' });
      sent.headers['x-service-signature'] = sent.headers['x-service-signature']!.replace(/v1=([0-9a-f]+)/, (_m, hex: string) => `v1=${hex.toUpperCase()}`);
      return sent;
    })(),
    expect: { status: 200, secretIndex: 0, type: 'trustcenter.access_approved', notes: true },
    compact: true,
  },
];

/** What an adapter answers when express.json() consumed the body first and kept no bytes. */
export function expectAfterJsonParser(c: VerifyCase): VerifyCase['expect'] | { status: 500; code: 'RAW_BODY_UNAVAILABLE' } {
  if (c.afterJsonParser) return c.afterJsonParser;
  const mismatch = c.expect.status === 400 && c.expect.code === 'SIGNATURE_MISMATCH';
  if (mismatch || (c.expect.status === 200 && !c.compact)) return { status: 500, code: 'RAW_BODY_UNAVAILABLE' };
  return c.expect;
}
