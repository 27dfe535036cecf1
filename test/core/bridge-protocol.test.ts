import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLOSE,
  closeReason,
  encodeClientFrame,
  encodeServerFrame,
  isSubscriberName,
  parseClientFrame,
  parseServerFrame,
  bridgeVersion,
  BRIDGE_PROTOCOLS,
  encodeDeliveryFrame,
  fitsDeliveryFrame,
  parseDeliveryFrames,
  type BridgeDelivery,
  type ServerFrame,
} from '../../src/core/bridge-protocol.js';

/** A delivery frame as the server writes it, as a plain object, so one field at a time can be spoiled. */
const validDelivery = (): Record<string, unknown> => ({
  type: 'delivery',
  seq: 7,
  id: 'evt_1',
  trigger: 'trustcenter.access_requested',
  receivedAt: 1_780_000_000_000,
  headers: [
    ['content-type', 'application/json'],
    ['x-service-delivery', 'evt_1'],
  ],
  body: Buffer.from('{"id":"evt_1"}').toString('base64'),
  signature: 'valid',
  secretIndex: 0,
  signatureTimestamp: 1_780_000_000,
});

const validHello = (): Record<string, unknown> => ({ type: 'hello', protocol: 1, subscriber: 'laptop', cursor: 3, latest: 9, credit: 16 });

const withField = (base: Record<string, unknown>, name: string, value: unknown): string => {
  const copy = { ...base };
  if (value === undefined) delete copy[name];
  else copy[name] = value;
  return JSON.stringify(copy);
};

const refusal = (text: string) => {
  const parsed = parseServerFrame(text);
  expect(parsed.ok).toBe(false);
  return parsed.ok ? '' : parsed.message;
};

/** Why a delivery frame that is whole (its seq known) holds a delivery the client cannot take. */
const untaken = (text: string) => {
  const parsed = parseServerFrame(text);
  expect(parsed.ok && parsed.frame.type === 'delivery').toBe(true);
  return parsed.ok && parsed.frame.type === 'delivery' ? parsed.frame.delivery.untaken : undefined;
};

describe('parseServerFrame: frames that are not objects', () => {
  it.each([
    ['', 'the frame is not JSON'],
    ['{', 'the frame is not JSON'],
    ["{'type':'live'}", 'the frame is not JSON'],
    ['undefined', 'the frame is not JSON'],
    ['null', 'the frame is not a JSON object'],
    ['[]', 'the frame is not a JSON object'],
    ['[{"type":"live"}]', 'the frame is not a JSON object'],
    ['1', 'the frame is not a JSON object'],
    ['"live"', 'the frame is not a JSON object'],
    ['true', 'the frame is not a JSON object'],
  ])('%j is refused: %s', (text, message) => {
    expect(parseServerFrame(text)).toEqual({ ok: false, message });
    expect(parseClientFrame(text)).toEqual({ ok: false, message });
  });

  it.each([
    ['{}', 'unknown frame type undefined'],
    ['{"type":"ack","seq":1}', 'unknown frame type "ack"'],
    ['{"type":"Hello"}', 'unknown frame type "Hello"'],
    ['{"type":1}', 'unknown frame type 1'],
    ['{"type":null}', 'unknown frame type null'],
    [JSON.stringify({ type: 'x'.repeat(100) }), `unknown frame type "${'x'.repeat(39)}`],
  ])('%j has an unknown type: %s', (text, message) => {
    expect(parseServerFrame(text)).toEqual({ ok: false, message });
  });
});

describe('parseServerFrame: hello', () => {
  it('reads a hello, keeping only its known fields', () => {
    expect(parseServerFrame(JSON.stringify({ ...validHello(), extra: true }))).toEqual({
      ok: true,
      frame: { type: 'hello', protocol: 1, subscriber: 'laptop', cursor: 3, latest: 9, credit: 16 },
    });
  });

  it.each([
    ['subscriber', 'x'.repeat(256)],
    ['cursor', 0],
    ['latest', 0],
    ['latest', Number.MAX_SAFE_INTEGER],
    ['credit', 1],
    ['missed', 0],
    ['missed', 6],
  ])('accepts the edge value %s = %j', (field, value) => {
    expect(parseServerFrame(withField(validHello(), field, value)).ok).toBe(true);
  });

  it('reads missed when the server counted it, and leaves it out when it did not (an older server)', () => {
    expect(parseServerFrame(withField(validHello(), 'missed', 2))).toEqual({ ok: true, frame: { type: 'hello', protocol: 1, subscriber: 'laptop', cursor: 3, latest: 9, credit: 16, missed: 2 } });
    const older = parseServerFrame(JSON.stringify(validHello()));
    expect(older.ok && older.frame.type === 'hello' && 'missed' in older.frame).toBe(false);
  });

  it('writes missed only when it is given', () => {
    const hello: ServerFrame = { type: 'hello', protocol: 2, subscriber: 'laptop', cursor: 3, latest: 9, credit: 16 };
    expect(JSON.parse(encodeServerFrame(hello))).not.toHaveProperty('missed');
    expect(parseServerFrame(encodeServerFrame({ ...hello, missed: 4 }))).toEqual({ ok: true, frame: { ...hello, missed: 4 } });
  });

  it('accepts missed 0 with a cursor beyond latest (the newest rows were removed), and nothing more', () => {
    const beyond = { ...validHello(), cursor: 9, latest: 3 };
    expect(parseServerFrame(withField(beyond, 'missed', 0)).ok).toBe(true);
    expect(refusal(withField(beyond, 'missed', 1))).toBe('hello: missed must be a whole number of at most latest - cursor');
  });

  it.each([
    ['protocol', 3, 'hello: protocol 3 is not 1 or 2'],
    ['protocol', '1', 'hello: protocol "1" is not 1 or 2'],
    ['protocol', null, 'hello: protocol null is not 1 or 2'],
    ['protocol', undefined, 'hello: protocol undefined is not 1 or 2'],
    ['subscriber', '', 'hello: subscriber must be a name'],
    ['subscriber', 'x'.repeat(257), 'hello: subscriber must be a name'],
    ['subscriber', 5, 'hello: subscriber must be a name'],
    ['subscriber', undefined, 'hello: subscriber must be a name'],
    ['cursor', -1, 'hello: cursor and latest must be sequence numbers'],
    ['cursor', 1.5, 'hello: cursor and latest must be sequence numbers'],
    ['cursor', '3', 'hello: cursor and latest must be sequence numbers'],
    ['cursor', 2 ** 53, 'hello: cursor and latest must be sequence numbers'],
    ['latest', undefined, 'hello: cursor and latest must be sequence numbers'],
    ['latest', null, 'hello: cursor and latest must be sequence numbers'],
    ['credit', 0, 'hello: credit must be a positive integer'],
    ['credit', -4, 'hello: credit must be a positive integer'],
    ['credit', 2.5, 'hello: credit must be a positive integer'],
    ['credit', '16', 'hello: credit must be a positive integer'],
    ['credit', undefined, 'hello: credit must be a positive integer'],
    ['missed', 7, 'hello: missed must be a whole number of at most latest - cursor'],
    ['missed', -1, 'hello: missed must be a whole number of at most latest - cursor'],
    ['missed', 1.5, 'hello: missed must be a whole number of at most latest - cursor'],
    ['missed', '2', 'hello: missed must be a whole number of at most latest - cursor'],
    ['missed', null, 'hello: missed must be a whole number of at most latest - cursor'],
    ['missed', 2 ** 53, 'hello: missed must be a whole number of at most latest - cursor'],
    ['missed', [2], 'hello: missed must be a whole number of at most latest - cursor'],
  ])('refuses %s = %j: %s', (field, value, message) => {
    expect(refusal(withField(validHello(), field, value))).toBe(message);
  });
});

describe('parseServerFrame: live', () => {
  it('reads live and drops any extra field', () => {
    expect(parseServerFrame('{"type":"live","seq":3}')).toEqual({ ok: true, frame: { type: 'live' } });
  });
});

describe('parseServerFrame: delivery', () => {
  it('reads a delivery with the body decoded to its bytes', () => {
    const parsed = parseServerFrame(JSON.stringify(validDelivery()));
    expect(parsed).toEqual({
      ok: true,
      frame: {
        type: 'delivery',
        delivery: {
          seq: 7,
          id: 'evt_1',
          trigger: 'trustcenter.access_requested',
          receivedAt: 1_780_000_000_000,
          headers: [
            ['content-type', 'application/json'],
            ['x-service-delivery', 'evt_1'],
          ],
          body: Buffer.from('{"id":"evt_1"}'),
          signature: 'valid',
          secretIndex: 0,
          signatureTimestamp: 1_780_000_000,
        },
      },
    });
  });

  it.each([
    ['seq', 1],
    ['id', 'i'.repeat(256)],
    ['trigger', 't'.repeat(256)],
    ['receivedAt', 0],
    ['signature', 'skipped'],
    ['secretIndex', null],
    ['signatureTimestamp', null],
    ['secretIndex', 0],
    ['headers', []],
    ['headers', Array.from({ length: 200 }, (_, i) => [`h${i}`, ''])],
    ['headers', [['x', 'tab\tand ünïcode ☃ are fine']]],
    ['headers', [["!#$%&'*+.^_`|~-", 'v']]],
    ['headers', [['n'.repeat(256), 'v']]],
    ['body', ''],
    ['body', 'AA=='],
    ['body', 'AAA='],
  ])('accepts the edge value %s = %j', (field, value) => {
    expect(parseServerFrame(withField(validDelivery(), field, value)).ok).toBe(true);
  });

  const SEQ = 'delivery: seq must be a positive integer';
  const ID = 'delivery: id must be a string of 1 to 256 characters';
  const TRIGGER = 'delivery: trigger must be a string of 1 to 256 characters';
  const TIME = 'delivery: receivedAt must be a time in ms';
  const SIGNATURE = 'delivery: signature must be "valid" or "skipped"';
  const NULLABLE = 'delivery: secretIndex and signatureTimestamp must be integers or null';
  const HEADERS = 'delivery: headers must be a list of [name, value] pairs';
  const COUNT = 'delivery: 201 header lines; hookrelay accepts at most 200';
  const NAME = 'delivery: a header name of 257 characters; hookrelay accepts at most 256';
  const PAIR = 'delivery: each header must be a [name, value] pair of strings';
  const TOKEN = 'delivery: a header name is not a valid token';
  const VALUE = 'delivery: a header value holds CR, LF or NUL';
  const BODY = 'delivery: body must be base64';

  it.each([
    ['seq', 0, SEQ],
    ['seq', -1, SEQ],
    ['seq', 1.5, SEQ],
    ['seq', '7', SEQ],
    ['seq', 2 ** 53, SEQ],
    ['seq', undefined, SEQ],
  ])('refuses the frame with %s = %j', (field, value, message) => {
    expect(refusal(withField(validDelivery(), field, value))).toBe(message);
  });

  it.each([
    ['id', '', ID],
    ['id', 'i'.repeat(257), ID],
    ['id', 1, ID],
    ['id', null, ID],
    ['id', undefined, ID],
    ['trigger', '', TRIGGER],
    ['trigger', 't'.repeat(257), TRIGGER],
    ['trigger', ['a'], TRIGGER],
    ['trigger', undefined, TRIGGER],
    ['receivedAt', -1, TIME],
    ['receivedAt', 1.5, TIME],
    ['receivedAt', '1780000000000', TIME],
    ['receivedAt', null, TIME],
    ['receivedAt', undefined, TIME],
    ['signature', 'invalid', SIGNATURE],
    ['signature', 'Valid', SIGNATURE],
    ['signature', true, SIGNATURE],
    ['signature', undefined, SIGNATURE],
    ['secretIndex', -1, NULLABLE],
    ['secretIndex', 0.5, NULLABLE],
    ['secretIndex', '0', NULLABLE],
    ['secretIndex', undefined, NULLABLE],
    ['signatureTimestamp', -1, NULLABLE],
    ['signatureTimestamp', false, NULLABLE],
    ['signatureTimestamp', undefined, NULLABLE],
    ['headers', undefined, HEADERS],
    ['headers', { a: 'b' }, HEADERS],
    ['headers', 'content-type: x', HEADERS],
    ['headers', Array.from({ length: 201 }, (_, i) => [`h${i}`, '']), COUNT],
    ['headers', [['a']], PAIR],
    ['headers', [['a', 'b', 'c']], PAIR],
    ['headers', [['a', 1]], PAIR],
    ['headers', [[1, 'b']], PAIR],
    ['headers', ['a: b'], PAIR],
    ['headers', [{ name: 'a', value: 'b' }], PAIR],
    ['headers', [['', 'b']], TOKEN],
    ['headers', [['a b', 'v']], TOKEN],
    ['headers', [['a:b', 'v']], TOKEN],
    ['headers', [['é', 'v']], TOKEN],
    ['headers', [['n'.repeat(257), 'v']], NAME],
    ['headers', [['a', 'x\r\ny: z']], VALUE],
    ['headers', [['a', 'x\ny']], VALUE],
    ['headers', [['a', 'x\ry']], VALUE],
    ['headers', [['a', 'x\0y']], VALUE],
    ['headers', [['ok', 'v'], ['bad name', 'v']], TOKEN],
    ['body', undefined, BODY],
    ['body', 42, BODY],
    ['body', 'abc', BODY],
    ['body', 'ab!=', BODY],
    ['body', 'a===', BODY],
    ['body', '====', BODY],
    ['body', 'A=A=', BODY],
    ['body', 'AA==AA==', BODY],
    ['body', 'aGVsbG8-', BODY],
    ['body', 'aGVs bG8=', BODY],
  ])('takes the frame but not the delivery with %s = %j', (field, value, message) => {
    expect(untaken(withField(validDelivery(), field, value))).toBe(message);
  });

  it('checks the fields in order and names the first that is wrong', () => {
    const frame = { ...validDelivery(), seq: 0, id: '', body: '!' };
    expect(refusal(JSON.stringify(frame))).toBe(SEQ);
    expect(untaken(JSON.stringify({ ...frame, seq: 1 }))).toBe(ID);
    expect(untaken(JSON.stringify({ ...frame, seq: 1, id: 'x' }))).toBe(BODY);
  });

  it('keeps of a delivery it cannot take its seq and the headers that pass, no more than the limit', () => {
    const headers = [['x-ok', 'v'], ['bad name', 'v'], ...Array.from({ length: 300 }, (_, i) => [`h${i}`, ''])];
    const parsed = parseServerFrame(withField(validDelivery(), 'headers', headers));
    expect(parsed.ok && parsed.frame.type === 'delivery').toBe(true);
    if (!parsed.ok || parsed.frame.type !== 'delivery') return;
    const d = parsed.frame.delivery;
    expect(d.untaken).toBe('delivery: 302 header lines; hookrelay accepts at most 200');
    expect(d.seq).toBe(7);
    expect(d.headers).toHaveLength(199);
    expect(d.headers[0]).toEqual(['x-ok', 'v']);
    expect(d.body.toString()).toBe('{"id":"evt_1"}');
  });
});

/** Characters of an RFC 9110 token, as the frame check allows them in a header name. */
const TOKEN_CHARS = "!#$%&'*+.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-".split('');

const deliveryArb: fc.Arbitrary<BridgeDelivery> = fc.record({
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  // 128 code points are at most 256 UTF-16 units, the limit the check counts in.
  id: fc.string({ unit: 'binary', minLength: 1, maxLength: 128 }),
  trigger: fc.string({ unit: 'binary', minLength: 1, maxLength: 128 }),
  receivedAt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  headers: fc.array(
    fc.tuple(
      fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 60 }).filter((v) => !/[\r\n\0]/.test(v)),
    ),
    { maxLength: 12 },
  ),
  body: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  signature: fc.constantFrom<'valid' | 'skipped'>('valid', 'skipped'),
  secretIndex: fc.option(fc.nat(), { nil: null }),
  signatureTimestamp: fc.option(fc.nat(), { nil: null }),
});

describe('encodeServerFrame → parseServerFrame', () => {
  it('gives back every generated delivery exactly, body bytes included', () => {
    fc.assert(
      fc.property(deliveryArb, (delivery) => {
        const frame: ServerFrame = { type: 'delivery', delivery };
        const parsed = parseServerFrame(encodeServerFrame(frame));
        expect(parsed).toEqual({ ok: true, frame });
        if (parsed.ok && parsed.frame.type === 'delivery') expect(parsed.frame.delivery.body.equals(delivery.body)).toBe(true);
      }),
      { seed: 21, numRuns: 400 },
    );
  });

  it('gives back every generated hello and live', () => {
    const helloArb = fc.record({
      type: fc.constant('hello' as const),
      protocol: fc.constantFrom(1 as const, 2 as const),
      subscriber: fc.string({ unit: 'binary', minLength: 1, maxLength: 128 }),
      cursor: fc.nat(),
      latest: fc.nat(),
      credit: fc.integer({ min: 1, max: 1_000_000 }),
    });
    fc.assert(
      fc.property(fc.oneof(helloArb, fc.constant({ type: 'live' as const })), (frame) => {
        expect(parseServerFrame(encodeServerFrame(frame))).toEqual({ ok: true, frame });
      }),
      { seed: 22, numRuns: 200 },
    );
  });

  it('writes the body as standard padded base64 of the exact bytes', () => {
    const delivery: BridgeDelivery = {
      seq: 1,
      id: 'evt_1',
      trigger: 't',
      receivedAt: 0,
      headers: [],
      body: Buffer.from([0xef, 0xbb, 0xbf, 0xff, 0x00, 0xfe]),
      signature: 'skipped',
      secretIndex: null,
      signatureTimestamp: null,
    };
    const wire = JSON.parse(encodeServerFrame({ type: 'delivery', delivery })) as Record<string, unknown>;
    expect(wire.body).toBe('77u//wD+');
    expect(Object.keys(wire)).toEqual(['type', 'seq', 'id', 'trigger', 'receivedAt', 'headers', 'body', 'signature', 'secretIndex', 'signatureTimestamp']);
  });

  it('never throws on any text or any JSON value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ ...validDelivery(), headers: v }))), (text) => {
        const server = parseServerFrame(text);
        const client = parseClientFrame(text);
        expect(typeof server.ok).toBe('boolean');
        expect(typeof client.ok).toBe('boolean');
      }),
      { seed: 23, numRuns: 500 },
    );
  });
});

describe('parseClientFrame', () => {
  it.each([0, 1, Number.MAX_SAFE_INTEGER])('reads ack %i', (seq) => {
    expect(parseClientFrame(encodeClientFrame({ type: 'ack', seq }))).toEqual({ ok: true, frame: { type: 'ack', seq } });
  });

  it('drops extra fields', () => {
    expect(parseClientFrame('{"type":"ack","seq":2,"more":1}')).toEqual({ ok: true, frame: { type: 'ack', seq: 2 } });
  });

  it.each([
    ['{"seq":1}', 'unknown frame type undefined'],
    ['{"type":"hello","seq":1}', 'unknown frame type "hello"'],
    ['{"type":"ACK","seq":1}', 'unknown frame type "ACK"'],
    [JSON.stringify({ type: 'y'.repeat(60) }), `unknown frame type "${'y'.repeat(39)}`],
    ['{"type":"ack"}', 'ack: seq must be a sequence number'],
    ['{"type":"ack","seq":-1}', 'ack: seq must be a sequence number'],
    ['{"type":"ack","seq":1.5}', 'ack: seq must be a sequence number'],
    ['{"type":"ack","seq":"1"}', 'ack: seq must be a sequence number'],
    ['{"type":"ack","seq":null}', 'ack: seq must be a sequence number'],
    ['{"type":"ack","seq":9007199254740992}', 'ack: seq must be a sequence number'],
  ])('refuses %s: %s', (text, message) => {
    expect(parseClientFrame(text)).toEqual({ ok: false, message });
  });

  it('round-trips every ack', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (seq) => {
        expect(parseClientFrame(encodeClientFrame({ type: 'ack', seq }))).toEqual({ ok: true, frame: { type: 'ack', seq } });
      }),
      { seed: 24, numRuns: 200 },
    );
  });
});

describe('closeReason', () => {
  it.each([
    ['delivery: seq must be a positive integer', 'delivery: seq must be a positive integer'],
    ['', ''],
    ['bad\r\nframe', 'bad??frame'],
    ['tab\there', 'tab?here'],
    ['del\x7f', 'del?'],
    ['café', 'caf?'],
    ['😀', '??'],
    ['x'.repeat(200), 'x'.repeat(120)],
    ['é'.repeat(200), '?'.repeat(120)],
  ])('%j → %j', (text, reason) => {
    expect(closeReason(text)).toBe(reason);
  });

  it('is at most 120 bytes of printable ASCII for any input, and keeps printable ASCII as it is', () => {
    const loneSurrogates = fc.string({ unit: fc.constantFrom('\ud800', '\udfff', '\u0000', '\u007f', '\u0085', 'a', '~'), maxLength: 400 });
    const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 400 }), fc.string({ maxLength: 400 }), loneSurrogates);
    fc.assert(
      fc.property(anyText, (text) => {
        const reason = closeReason(text);
        expect(Buffer.byteLength(reason, 'utf8')).toBeLessThanOrEqual(120);
        expect(reason).toMatch(/^[\x20-\x7e]*$/);
        expect(reason.length).toBe(Math.min(text.length, 120));
        if (/^[\x20-\x7e]*$/.test(text)) expect(reason).toBe(text.slice(0, 120));
      }),
      { seed: 25, numRuns: 500 },
    );
  });

  it('fits any refusal message of a hostile frame', () => {
    const hostile = JSON.stringify({ type: '\u0000\r\n'.repeat(500) + '€'.repeat(500) });
    const parsed = parseServerFrame(hostile);
    expect(parsed.ok).toBe(false);
    const reason = closeReason(parsed.ok ? '' : parsed.message);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(120);
    expect(reason.startsWith('unknown frame type "')).toBe(true);
  });
});

describe('isSubscriberName', () => {
  it.each([
    ['laptop', true],
    ['a', true],
    ['0', true],
    ['dev-box.local_2', true],
    ['A'.repeat(64), true],
    ['A'.repeat(65), false],
    ['', false],
    ['-laptop', false],
    ['.hidden', false],
    ['_x', false],
    ['my laptop', false],
    ['née', false],
    ['a/b', false],
    ['a\n', false],
  ])('%j → %s', (name, ok) => {
    expect(isSubscriberName(name)).toBe(ok);
  });
});

describe('close codes', () => {
  it('puts the application codes in 4000–4999 and keeps 1001 for going away', () => {
    expect(CLOSE).toEqual({ badFrame: 4400, goingAway: 1001, silent: 4408 });
  });
});

describe('protocol version 2: a delivery as one binary frame', () => {
  const sample = (): BridgeDelivery => ({
    seq: 7, id: 'evt_1', trigger: 'trustcenter.access_requested', receivedAt: 1_780_000_000_000,
    headers: [['Content-Type', 'application/json'], ['X-Service-Delivery', 'evt_1'], ['X-Empty', '']],
    body: Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff, 0x00, 0x7d]), signature: 'valid', secretIndex: 2, signatureTimestamp: 1_780_000_000,
  });

  it('names the versions newest first, and reads them back from the subprotocol', () => {
    expect(BRIDGE_PROTOCOLS).toEqual(['hookrelay-bridge.2', 'hookrelay-bridge.1']);
    expect(BRIDGE_PROTOCOLS.map(bridgeVersion)).toEqual([2, 1]);
    expect(bridgeVersion('hookrelay-bridge.3')).toBeNull();
  });

  it('gives back every generated delivery exactly, body bytes included', () => {
    fc.assert(
      fc.property(deliveryArb, (delivery) => {
        expect(fitsDeliveryFrame(delivery)).toBe(true);
        const parsed = parseDeliveryFrames(encodeDeliveryFrame(delivery));
        expect(parsed).toEqual({ ok: true, deliveries: [delivery] });
        if (parsed.ok) expect(parsed.deliveries[0]!.body.equals(delivery.body)).toBe(true);
      }),
      { seed: 23, numRuns: 400 },
    );
  });

  it('gives back every delivery of a frame of several records, in order', () => {
    fc.assert(
      fc.property(fc.array(deliveryArb, { minLength: 1, maxLength: 6 }), (list) => {
        expect(parseDeliveryFrames(Buffer.concat(list.map(encodeDeliveryFrame)))).toEqual({ ok: true, deliveries: list });
      }),
      { seed: 25, numRuns: 200 },
    );
  });

  it('lays out the frame as docs/bridge.md says', () => {
    const frame = encodeDeliveryFrame(sample());
    expect(frame[0]).toBe(1);
    expect(frame[1]).toBe(1 | 2 | 4);
    expect(frame.readBigUInt64BE(2)).toBe(7n);
    expect(frame.readBigUInt64BE(10)).toBe(1_780_000_000_000n);
    expect(frame.readUInt32BE(18)).toBe(2);
    expect(frame.readBigUInt64BE(22)).toBe(1_780_000_000n);
    expect(frame.readUInt16BE(30)).toBe(5);
    expect(frame.toString('utf8', 32, 37)).toBe('evt_1');
    const lines = 'Content-Type: application/json\nX-Service-Delivery: evt_1\nX-Empty: \n';
    const linesAt = 37 + 2 + 28;
    expect(frame.readUInt32BE(linesAt)).toBe(lines.length);
    expect(frame.toString('utf8', linesAt + 4, linesAt + 4 + lines.length)).toBe(lines);
    expect(frame.readUInt32BE(linesAt + 4 + lines.length)).toBe(7);
    expect(frame.length).toBe(linesAt + 4 + lines.length + 4 + 7);
    const skipped = encodeDeliveryFrame({ ...sample(), signature: 'skipped', secretIndex: null, signatureTimestamp: null });
    expect(skipped[1]).toBe(0);
  });

  it('says when a delivery cannot travel as UTF-8 (a lone surrogate), so the server sends it as JSON', () => {
    expect(fitsDeliveryFrame({ ...sample(), id: 'evt_\ud800' })).toBe(false);
    expect(fitsDeliveryFrame({ ...sample(), headers: [['x-a', '\udc00']] })).toBe(false);
    expect(fitsDeliveryFrame({ ...sample(), secretIndex: 2 ** 32 })).toBe(false);
    expect(fitsDeliveryFrame({ ...sample(), secretIndex: 2 ** 32 - 1 })).toBe(true);
    const json = parseServerFrame(encodeServerFrame({ type: 'delivery', delivery: { ...sample(), id: 'evt_\ud800' } }));
    expect(json.ok && json.frame.type === 'delivery' && json.frame.delivery.id).toBe('evt_\ud800');
  });

  /** The sample's frame with its header lines replaced by `block`, byte for byte. */
  const withLines = (block: Buffer): Buffer => {
    const frame = encodeDeliveryFrame({ ...sample(), headers: [] });
    const linesAt = 30 + 2 + frame.readUInt16BE(30);
    const at = linesAt + 2 + frame.readUInt16BE(linesAt);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(block.length);
    return Buffer.concat([frame.subarray(0, at), length, block, frame.subarray(at + 4)]);
  };
  const spoil = (change: (frame: Buffer) => Buffer | void): Buffer => {
    const frame = Buffer.from(encodeDeliveryFrame(sample()));
    return change(frame) ?? frame;
  };
  it.each([
    ['seq 0', spoil((f) => void f.writeBigUInt64BE(0n, 2)), 'delivery: seq must be a positive integer'],
    ['seq past 2^53', spoil((f) => void f.writeBigUInt64BE(2n ** 53n, 2)), 'delivery: seq must be a positive integer'],
    ['unknown flags', spoil((f) => void (f[1] = 8)), 'delivery: unknown flags 8'],
    ['a body longer than the frame', spoil((f) => void f.writeUInt32BE(8, f.length - 11)), 'delivery: the body runs past the end of the frame'],
    ['a byte after the body, read as the start of a second record', spoil((f) => Buffer.concat([f, Buffer.from('x')])), 'record 2 of the frame: unknown binary frame type 120'],
    ['an unknown frame type', spoil((f) => void (f[0] = 2)), 'unknown binary frame type 2'],
  ])('refuses the frame with %s', (_name, frame, message) => {
    expect(parseDeliveryFrames(frame)).toEqual({ ok: false, message });
  });

  it.each([
    ['receivedAt past 2^53', spoil((f) => void f.writeBigUInt64BE(2n ** 60n, 10)), 'delivery: receivedAt must be a time in ms'],
    ['a secretIndex said absent but set', spoil((f) => void (f[1] = 1 | 4)), 'delivery: secretIndex is absent but not 0'],
    ['a timestamp said absent but set', spoil((f) => void (f[1] = 1 | 2)), 'delivery: signatureTimestamp is absent but not 0'],
    ['an empty id', encodeDeliveryFrame({ ...sample(), id: '' }), 'delivery: id must be a string of 1 to 256 characters'],
    ['an id of invalid UTF-8', spoil((f) => void (f[32] = 0xff)), 'delivery: id must be a string of 1 to 256 characters'],
    ['a trigger of 257 characters', encodeDeliveryFrame({ ...sample(), trigger: 't'.repeat(257) }), 'delivery: trigger must be a string of 1 to 256 characters'],
    ['a header name that is not a token', encodeDeliveryFrame({ ...sample(), headers: [['bad name', 'v']] }), 'delivery: a header name is not a valid token'],
    ['a header name of 257 characters', encodeDeliveryFrame({ ...sample(), headers: [[`x-${'n'.repeat(255)}`, 'v']] }), 'delivery: a header name of 257 characters; hookrelay accepts at most 256'],
    ['a header value with NUL', encodeDeliveryFrame({ ...sample(), headers: [['x-a', 'v\0']] }), 'delivery: a header value holds CR, LF or NUL'],
    ['a header line without ": "', withLines(Buffer.from('x-a\n')), 'delivery: a header line has no ": " after its name'],
    ['a header line without its line feed', withLines(Buffer.from('x-a: v')), 'delivery: the header lines must each end with a line feed'],
    ['header lines that are not UTF-8', withLines(Buffer.from([0x78, 0x3a, 0x20, 0xff, 0x0a])), 'delivery: the headers are not UTF-8'],
    ['201 headers', encodeDeliveryFrame({ ...sample(), headers: Array.from({ length: 201 }, (_, i) => [`x-${i}`, 'v'] as [string, string]) }), 'delivery: 201 header lines; hookrelay accepts at most 200'],
  ])('takes the frame but not the delivery with %s', (_name, frame, message) => {
    const parsed = parseDeliveryFrames(frame);
    expect(parsed.ok && parsed.deliveries.map((d) => [d.seq, d.untaken])).toEqual([[7, message]]);
  });

  it('reads on past a delivery it cannot take: the next record of the frame is whole', () => {
    const bad = encodeDeliveryFrame({ ...sample(), headers: [[`x-${'n'.repeat(255)}`, 'v']] });
    const good = encodeDeliveryFrame({ ...sample(), seq: 8 });
    const parsed = parseDeliveryFrames(Buffer.concat([bad, good]));
    expect(parsed.ok && parsed.deliveries.map((d) => [d.seq, d.untaken])).toEqual([[7, 'delivery: a header name of 257 characters; hookrelay accepts at most 256'], [8, undefined]]);
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const parsed = parseDeliveryFrames(Buffer.from(bytes));
        return parsed.ok || parsed.message.length > 0;
      }),
      { seed: 24, numRuns: 2000 },
    );
  });
});
