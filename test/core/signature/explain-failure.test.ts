import { describe, expect, it } from 'vitest';
import { explainHeaderFailure, explainMismatch, explainTimestamp, formatSeconds } from '../../../src/core/signature/explain-failure.js';
import { parseSignatureHeader } from '../../../src/core/signature/parse-signature-header.js';
import type { ParsedSignatureHeader } from '../../../src/core/signature/parse-signature-header.js';
import { sign } from '../../../src/core/signature/sign.js';

const SECRET = 'whsec_explain_41c9';
const T = 1_767_225_600;
const BODY = '{"id":"dlv_9","data":{"n":1}}';

function headerFor(signedBody: string | Buffer, secret = SECRET): ParsedSignatureHeader {
  const parsed = parseSignatureHeader(sign(secret, signedBody, T));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.header;
}

const explain = (received: string | Buffer, signed: string | Buffer, secrets: string[] = [SECRET]): string[] =>
  explainMismatch({ secrets, header: headerFor(signed), body: Buffer.from(received), bodyWasString: false });

describe('explainMismatch: how the body changed', () => {
  it.each([
    ['CRLF appended', `${BODY}\r\n`, BODY, /it matches the body with its trailing CRLF removed/],
    ['CRLF stripped', BODY, `${BODY}\r\n`, /it matches the body with a trailing CRLF added/],
    ['newline stripped from pretty JSON', JSON.stringify(JSON.parse(BODY), null, 2), `${JSON.stringify(JSON.parse(BODY), null, 2)}\n`, /trailing newline added/],
    ['pretty-printed by the sender, compacted on the way', BODY, JSON.stringify(JSON.parse(BODY), null, 2), /pretty-printed with JSON\.stringify\(…, null, 2\)/],
    ['BOM added', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BODY)]), BODY, /leading UTF-8 BOM removed: a byte-order mark was added after signing/],
  ])('%s', (_name, received, signed, hint) => {
    const hints = explain(received, signed);
    expect(hints).toEqual([expect.stringMatching(hint)]);
    expect(hints[0]).toMatch(/^the body was changed after signing: /);
  });

  it('names the secret that matched when there are several', () => {
    const hints = explain(`${BODY}\n`, BODY, ['whsec_other_1', SECRET]);
    expect(hints).toEqual([expect.stringMatching(/trailing newline removed \(with secret #2\)/)]);
  });

  it('falls back to the general questions, mentioning JSON.stringify only for compact JSON', () => {
    const [compact] = explain(BODY, 'something else');
    expect(compact).toMatch(/^no v1 signature matches with the one secret configured: are you passing the raw request body/);
    expect(compact).toMatch(/exactly what JSON\.stringify writes/);
    const [notJson] = explain('plain text', 'something else', ['whsec_1', 'whsec_2']);
    expect(notJson).toMatch(/with all 2 secrets/);
    expect(notJson).not.toMatch(/JSON\.stringify/);
  });

  it('mentions skipped v1 entries and ignored schemes', () => {
    const parsed = parseSignatureHeader(`${sign('nope', BODY, T)},v1=junk,v0=abc`);
    if (!parsed.ok) throw new Error(parsed.message);
    const hints = explainMismatch({ secrets: [SECRET], header: parsed.header, body: Buffer.from(BODY), bodyWasString: false });
    expect(hints).toContain('1 malformed v1 entry was skipped (not 64 hex characters)');
    expect(hints).toContain('other schemes were ignored: v0');
  });

  it('describes leading and trailing whitespace of a secret without showing it', () => {
    const hints = explainMismatch({ secrets: [`\n${SECRET}\r\n`], header: headerFor(BODY), body: Buffer.from(BODY), bodyWasString: false });
    expect(hints).toEqual([expect.stringMatching(/^secret #1 has a leading newline and a trailing newline; /)]);
    expect(hints.join('')).not.toContain(SECRET);
  });
});

describe('other hints', () => {
  it.each([
    ['missing', /is signing turned on/],
    ['malformed', /must look like t=<unix seconds>,v1=<64 hex characters>/],
    ['no_signatures', /only v1/],
  ] as const)('header %s', (reason, hint) => {
    expect(explainHeaderFailure(reason)).toEqual([expect.stringMatching(hint)]);
  });

  it.each([
    [-301.25, 300, /^clock skew: t is 301\.25 s behind .*replay/],
    [400, 300, /^clock skew: t is 400 s ahead .*NTP/],
  ])('skew %s with tolerance %s', (skew, tolerance, hint) => {
    expect(explainTimestamp(skew, tolerance)).toEqual([expect.stringMatching(hint)]);
  });

  it.each([
    [300, '300'],
    [0.5, '0.5'],
    [1 / 3, '0.333'],
  ])('formatSeconds(%s) = %s', (seconds, text) => {
    expect(formatSeconds(seconds)).toBe(text);
  });
});
