import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CURRENT_API_VERSION, MAX_ID_LENGTH, checkEnvelope, decodeBodyLeniently, keptBodyText, wholeUtf8Length, type EnvelopeProblem } from '../../src/core/envelope.js';

const ID = '0b8f4a52-6a1f-4c53-9d1e-3d2b1c0a9f87';
const TYPE = 'trustcenter.access_requested';

function envelope(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: ID,
    type: TYPE,
    apiVersion: CURRENT_API_VERSION,
    createdAt: '2026-11-21T10:00:00Z',
    organizationId: 'org_1',
    data: { accessRequestId: 'ar_1' },
    ...overrides,
  };
}

const bytes = (value: unknown): Buffer => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
const headersOf = (body: Record<string, unknown>) => ({ deliveryId: body.id as string | undefined, event: body.type as string | undefined });
const HEADERS = { deliveryId: ID, event: TYPE };

describe('checkEnvelope: a valid delivery (spec 6.1)', () => {
  it('returns the envelope, with apiVersionKnown for the current version', () => {
    const body = envelope();
    expect(checkEnvelope(bytes(body), HEADERS)).toEqual({ ok: true, envelope: body, apiVersionKnown: true });
  });

  it('accepts an unknown apiVersion, marked', () => {
    const result = checkEnvelope(bytes(envelope({ apiVersion: '2099-01-01' })), HEADERS);
    expect(result).toMatchObject({ ok: true, apiVersionKnown: false, envelope: { apiVersion: '2099-01-01' } });
  });

  it.each(['2026-11-21T10:00:00Z', '2026-11-21T10:00:00.123456Z', '2026-11-21T12:00:00+02:00', '2026-11-21T05:00:00-05:00'])('accepts createdAt %j', (createdAt) => {
    expect(checkEnvelope(bytes(envelope({ createdAt })), HEADERS).ok).toBe(true);
  });

  it('keeps fields it does not know, and any data object', () => {
    const body = envelope({ extra: [1, 2], data: {} });
    expect(checkEnvelope(bytes(body), HEADERS)).toMatchObject({ ok: true, envelope: { extra: [1, 2], data: {} } });
  });
});

describe('checkEnvelope: every problem code, with a message naming the field', () => {
  it.each<[string, Buffer, EnvelopeProblem, string | RegExp]>([
    ['an empty body', Buffer.alloc(0), 'invalid_json', /^body is not valid JSON: /],
    ['text that is no JSON', bytes('{"id": '), 'invalid_json', /^body is not valid JSON: /],
    ['a JSON array', bytes([envelope()]), 'invalid_envelope', 'body must be a JSON object'],
    ['JSON null', bytes('null'), 'invalid_envelope', 'body must be a JSON object'],
    ['a JSON string', bytes('"x"'), 'invalid_envelope', 'body must be a JSON object'],
    ['a JSON number', bytes('42'), 'invalid_envelope', 'body must be a JSON object'],
    ['createdAt that is not RFC 3339', bytes(envelope({ createdAt: '21 Nov 2026 10:00' })), 'invalid_envelope', 'envelope field "createdAt" must be an RFC 3339 date-time'],
    ['createdAt without a zone', bytes(envelope({ createdAt: '2026-11-21T10:00:00' })), 'invalid_envelope', 'envelope field "createdAt" must be an RFC 3339 date-time'],
    ['createdAt in month 13', bytes(envelope({ createdAt: '2026-13-01T10:00:00Z' })), 'invalid_envelope', 'envelope field "createdAt" must be an RFC 3339 date-time'],
    ['no data', bytes(envelope({ data: undefined })), 'invalid_envelope', 'envelope field "data" must be a JSON object'],
    ['data null', bytes(envelope({ data: null })), 'invalid_envelope', 'envelope field "data" must be a JSON object'],
    ['data an array', bytes(envelope({ data: [] })), 'invalid_envelope', 'envelope field "data" must be a JSON object'],
    ['data a string', bytes(envelope({ data: 'x' })), 'invalid_envelope', 'envelope field "data" must be a JSON object'],
  ])('%s → %s', (_, raw, problem, message) => {
    const result = checkEnvelope(raw, HEADERS);
    expect(result).toMatchObject({ ok: false, problem });
    if (!result.ok) expect(result.message).toMatch(message);
  });

  const required = ['id', 'type', 'apiVersion', 'createdAt', 'organizationId'] as const;
  it.each(required.flatMap((field) => [undefined, '', 42, null, ['x'], { a: 1 }].map((value) => [field, value] as const)))(
    'refuses %s = %j as invalid_envelope',
    (field, value) => {
      const body = envelope({ [field]: value });
      expect(checkEnvelope(bytes(body), HEADERS)).toEqual({ ok: false, problem: 'invalid_envelope', message: `envelope field "${field}" must be a non-empty string` });
    },
  );

  it('reports the first problem, in the order of the checks', () => {
    // Missing id and bad createdAt: the missing field is named first.
    expect(checkEnvelope(bytes(envelope({ id: undefined, createdAt: 'x' })), HEADERS)).toMatchObject({ message: 'envelope field "id" must be a non-empty string' });
    // A bad envelope is reported before any header mismatch.
    expect(checkEnvelope(bytes(envelope({ data: null })), { deliveryId: 'other', event: 'other' })).toMatchObject({ problem: 'invalid_envelope' });
    // The id mismatch before the type mismatch.
    expect(checkEnvelope(bytes(envelope()), { deliveryId: 'other', event: 'other' })).toMatchObject({ problem: 'delivery_id_mismatch' });
  });

  it.each<[string, { deliveryId: string | undefined; event: string | undefined }, EnvelopeProblem, string]>([
    ['x-service-delivery missing', { deliveryId: undefined, event: TYPE }, 'delivery_id_mismatch', 'header x-service-delivery is missing (it must equal the body "id")'],
    ['x-service-delivery different', { deliveryId: `${ID}x`, event: TYPE }, 'delivery_id_mismatch', 'header x-service-delivery does not equal the body "id"'],
    ['x-service-delivery in another case', { deliveryId: ID.toUpperCase(), event: TYPE }, 'delivery_id_mismatch', 'header x-service-delivery does not equal the body "id"'],
    ['x-service-event missing', { deliveryId: ID, event: undefined }, 'event_type_mismatch', 'header x-service-event is missing (it must equal the body "type")'],
    ['x-service-event different', { deliveryId: ID, event: 'vendor.rating_dropped' }, 'event_type_mismatch', 'header x-service-event does not equal the body "type"'],
  ])('%s → %s', (_, headers, problem, message) => {
    expect(checkEnvelope(bytes(envelope()), headers)).toEqual({ ok: false, problem, message });
  });
});

describe('checkEnvelope: the id and type length limit (MAX_ID_LENGTH)', () => {
  it('is 256', () => {
    expect(MAX_ID_LENGTH).toBe(256);
  });

  it.each(['id', 'type'] as const)('accepts a %s of exactly 256 characters and refuses 257, naming the length', (field) => {
    const at = envelope({ [field]: 'a'.repeat(MAX_ID_LENGTH) });
    expect(checkEnvelope(bytes(at), headersOf(at)).ok).toBe(true);
    const over = envelope({ [field]: 'a'.repeat(MAX_ID_LENGTH + 1) });
    expect(checkEnvelope(bytes(over), headersOf(over))).toEqual({
      ok: false,
      problem: 'invalid_envelope',
      message: `envelope field "${field}" is 257 characters long; hookrelay accepts at most 256`,
    });
  });

  it('counts UTF-16 code units: 128 emoji fit, 129 do not', () => {
    const fits = envelope({ id: '\u{1f600}'.repeat(128) });
    expect(checkEnvelope(bytes(fits), headersOf(fits)).ok).toBe(true);
    const over = envelope({ id: '\u{1f600}'.repeat(129) });
    expect(checkEnvelope(bytes(over), headersOf(over))).toMatchObject({ ok: false, message: 'envelope field "id" is 258 characters long; hookrelay accepts at most 256' });
  });

  it('checks the length before the headers, so an overlong id is never compared', () => {
    const over = envelope({ type: 't'.repeat(300) });
    expect(checkEnvelope(bytes(over), HEADERS)).toMatchObject({ ok: false, problem: 'invalid_envelope' });
  });
});

describe('lenient decoding: a BOM and invalid UTF-8 do not make a body unreadable', () => {
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

  it('skips a leading BOM', () => {
    const raw = Buffer.concat([BOM, bytes(envelope())]);
    expect(checkEnvelope(raw, HEADERS)).toMatchObject({ ok: true, apiVersionKnown: true });
    expect(decodeBodyLeniently(raw)).toBe(JSON.stringify(envelope()));
  });

  it('skips only one leading BOM, and none elsewhere', () => {
    expect(decodeBodyLeniently(Buffer.concat([BOM, BOM, bytes('{}')]))).toBe('\ufeff{}');
    expect(decodeBodyLeniently(Buffer.concat([bytes(' '), BOM]))).toBe(' \ufeff');
    expect(checkEnvelope(Buffer.concat([BOM, BOM, bytes(envelope())]), HEADERS)).toMatchObject({ ok: false, problem: 'invalid_json' });
  });

  it('reads invalid UTF-8 inside a string as U+FFFD and accepts the envelope', () => {
    const [before, after] = JSON.stringify(envelope({ organizationId: 'org_@' })).split('@') as [string, string];
    const raw = Buffer.concat([bytes(before), Buffer.from([0xff, 0xc3]), bytes(after)]);
    const result = checkEnvelope(raw, HEADERS);
    expect(result).toMatchObject({ ok: true, envelope: { organizationId: 'org_\ufffd\ufffd' } });
  });

  it('never changes the bytes it reads (they stay what is stored)', () => {
    const raw = Buffer.concat([BOM, Buffer.from([0xff]), bytes('{}')]);
    const copy = Buffer.from(raw);
    decodeBodyLeniently(raw);
    checkEnvelope(raw, HEADERS);
    expect(raw.equals(copy)).toBe(true);
  });

  it('reads a short body without a full BOM', () => {
    expect(decodeBodyLeniently(Buffer.from([0xef, 0xbb]))).toBe('\ufffd');
    expect(decodeBodyLeniently(Buffer.alloc(0))).toBe('');
  });

  it("decodes any bytes as Node's Buffer does, less one leading BOM (the portable decoder is the receiver's too)", () => {
    const nodeReading = (raw: Buffer) => raw.toString('utf8', raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0);
    // Bytes that start, continue and break UTF-8 sequences (surrogates, overlongs, past U+10FFFF) and BOMs.
    const tricky = fc.constantFrom(0xef, 0xbb, 0xbf, 0xc0, 0xc2, 0x80, 0xbf, 0xe0, 0xa0, 0xed, 0xf0, 0x90, 0xf4, 0x8f, 0xf5, 0xff, 0x41, 0x22);
    // And long, mostly ASCII bodies with those bytes among them: a decoder may take another path past a few hundred bytes.
    const long = fc.array(fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) }, { weight: 1, arbitrary: tricky }), { minLength: 256, maxLength: 4096 }).map((a) => Uint8Array.from(a));
    fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.array(tricky, { maxLength: 24 }).map((a) => Uint8Array.from(a)), long), (arr) => {
      const raw = Buffer.from(arr);
      expect(decodeBodyLeniently(raw)).toBe(nodeReading(raw));
    }), { numRuns: 2000 });
  });
});

describe('checkEnvelope: properties', () => {
  it('never throws, whatever the bytes and headers', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.option(fc.string()), fc.option(fc.string()), (raw, deliveryId, event) => {
        const result = checkEnvelope(Buffer.from(raw), { deliveryId: deliveryId ?? undefined, event: event ?? undefined });
        expect(typeof result.ok).toBe('boolean');
      }),
      { seed: 21, numRuns: 2000 },
    );
  });

  it('accepts every well-formed envelope whose headers agree, and apiVersionKnown says whether it is the current one', () => {
    const text = fc.string({ minLength: 1, maxLength: MAX_ID_LENGTH });
    fc.assert(
      fc.property(text, text, fc.constantFrom(CURRENT_API_VERSION, '2025-01-01', 'x'), fc.dictionary(fc.string(), fc.jsonValue()), (id, type, apiVersion, data) => {
        const body = envelope({ id, type, apiVersion, data });
        const result = checkEnvelope(bytes(body), { deliveryId: id, event: type });
        expect(result).toMatchObject({ ok: true, apiVersionKnown: apiVersion === CURRENT_API_VERSION });
      }),
      { seed: 22, numRuns: 500 },
    );
  });
});

describe('wholeUtf8Length', () => {
  it.each<[string, number[], number]>([
    ['ASCII', [0x61, 0x62], 2],
    ['a whole 2-byte character', [0x61, 0xc3, 0xa9], 3],
    ['a 2-byte character cut after its lead', [0x61, 0xc3], 1],
    ['a 3-byte character cut after 2 bytes', [0x61, 0xe2, 0x82], 1],
    ['a whole 4-byte character', [0xf0, 0x9f, 0x8e, 0x89], 4],
    ['a 4-byte character cut after 3 bytes', [0x61, 0xf0, 0x9f, 0x8e], 1],
    ['invalid bytes are left as they are', [0x61, 0xff], 2],
    ['empty', [], 0],
  ])('%s', (_name, bytes, length) => {
    expect(wholeUtf8Length(Uint8Array.from(bytes))).toBe(length);
  });
});

describe('keptBodyText', () => {
  const euro = [0xe2, 0x82, 0xac];
  it.each<[string, number[], { bodyBytes: number; complete: boolean }, string, boolean]>([
    ['whole and valid', [0x61, ...euro], { bodyBytes: 4, complete: true }, 'a€', false],
    ['kept in part (4 KiB of more), cut inside a character: not invalid', [0x61, 0xe2, 0x82], { bodyBytes: 9000, complete: true }, 'a', false],
    ['cut off by the target below 4 KiB (not complete), inside a character: not invalid', [0x61, 0xe2, 0x82], { bodyBytes: 3, complete: false }, 'a', false],
    ['whole (complete, every byte kept) and ending inside a character: invalid', [0x61, 0xe2, 0x82], { bodyBytes: 3, complete: true }, 'a\uFFFD', true],
    ['kept in part with invalid bytes before the cut: invalid', [0x61, 0xff, 0x62, 0xe2], { bodyBytes: 9000, complete: true }, 'a\uFFFDb', true],
    ['a BOM is skipped for reading', [0xef, 0xbb, 0xbf, 0x61], { bodyBytes: 4, complete: true }, 'a', false],
    ['empty', [], { bodyBytes: 0, complete: true }, '', false],
  ])('%s', (_name, bytes, seen, text, invalidUtf8) => {
    expect(keptBodyText(Buffer.from(bytes), seen)).toEqual({ text, invalidUtf8 });
  });
});
