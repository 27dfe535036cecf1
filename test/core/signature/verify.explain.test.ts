import { describe, expect, it } from 'vitest';
import {
  explainHeaderFailure,
  explainMismatch,
  explainNotBytes,
  explainTimestamp,
  formatSeconds,
  type ParsedSignatureHeader,
  parseSignatureHeader,
} from '../../../src/core/signature/verify.js';
import { noMatchQuestion } from '../../../src/core/signature/explain-text.js';
import { sign } from '../../../src/core/signature/sign.js';
import { hintTexts, type SignatureHint } from '../../../src/core/signature/signature-hint.js';

const SECRET = 'whsec_explain_41c9';
const T = 1_767_225_600;
const BODY = '{"id":"dlv_9","data":{"n":1}}';

function headerFor(signedBody: string | Buffer, secret = SECRET): ParsedSignatureHeader {
  const parsed = parseSignatureHeader(sign(secret, signedBody, T));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.header;
}

const explainTyped = (received: string | Buffer, signed: string | Buffer, secrets: string[] = [SECRET]): SignatureHint[] =>
  explainMismatch({ secrets, header: headerFor(signed), body: Buffer.from(received), bodyWasString: false });
const explain = (received: string | Buffer, signed: string | Buffer, secrets: string[] = [SECRET]): string[] => hintTexts(explainTyped(received, signed, secrets));

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
    const hints = hintTexts(explainMismatch({ secrets: [SECRET], header: parsed.header, body: Buffer.from(BODY), bodyWasString: false }));
    expect(hints).toContain('1 malformed v1 entry was skipped (not 64 hex characters)');
    expect(hints).toContain('other schemes were ignored: v0');
  });

  it('describes leading and trailing whitespace of a secret without showing it', () => {
    const hints = hintTexts(explainMismatch({ secrets: [`\n${SECRET}\r\n`], header: headerFor(BODY), body: Buffer.from(BODY), bodyWasString: false }));
    expect(hints).toEqual([expect.stringMatching(/^secret #1 has a leading newline and a trailing newline; /)]);
    expect(hints.join('')).not.toContain(SECRET);
  });
});

describe('hint ids: what a reader decides by, whatever the wording', () => {
  const PRETTY = JSON.stringify(JSON.parse(BODY), null, 2);
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  it.each([
    ['newline added', `${BODY}\n`, BODY, SECRET, [SECRET], ['body-line-ending']],
    ['CRLF stripped', BODY, `${BODY}\r\n`, SECRET, [SECRET], ['body-line-ending']],
    ['BOM added', Buffer.concat([BOM, Buffer.from(BODY)]), BODY, SECRET, [SECRET], ['body-bom']],
    ['BOM stripped', BODY, Buffer.concat([BOM, Buffer.from(BODY)]), SECRET, [SECRET], ['body-bom']],
    ['compacted', BODY, PRETTY, SECRET, [SECRET], ['body-reserialised']],
    ['pretty-printed', PRETTY, BODY, SECRET, [SECRET], ['body-reserialised']],
    ['secret with whitespace', BODY, BODY, SECRET, [` ${SECRET}`], ['secret-whitespace']],
    ["sender's secret with a newline", BODY, BODY, `${SECRET}\n`, [SECRET], ['secret-trailing-newline']],
    ['another secret', BODY, BODY, 'whsec_someone_else', [SECRET], ['no-match-question']],
    ['over the guessing limit', `{"pad":"${'x'.repeat(256 * 1024)}"}`, 'x', SECRET, [SECRET], ['body-too-large-to-guess']],
  ])('%s', (_name, received, signed, signer, secrets, ids) => {
    const hints = explainMismatch({ secrets, header: headerFor(signed, signer), body: Buffer.from(received), bodyWasString: false });
    expect(hints.map((hint) => hint.id)).toEqual(ids);
  });

  it('keeps one general question, whatever is added to its words', () => {
    const [hint, ...rest] = explainMismatch({ secrets: [SECRET], header: headerFor('other'), body: Buffer.from(BODY), bodyWasString: true });
    expect(rest).toEqual([]);
    expect(hint!.id).toBe('no-match-question');
    expect(hint!.text.startsWith(noMatchQuestion(1))).toBe(true);
    expect(hint!.text).toMatch(/given as a string.*JSON\.stringify writes/);
  });

  it('names the header notes and a body that is not bytes', () => {
    const parsed = parseSignatureHeader(`${sign('nope', BODY, T)},v1=junk,v0=abc`);
    if (!parsed.ok) throw new Error(parsed.message);
    const hints = explainMismatch({ secrets: [SECRET], header: parsed.header, body: Buffer.from(BODY), bodyWasString: false });
    expect(hints.map((hint) => hint.id)).toEqual(['no-match-question', 'malformed-v1-skipped', 'other-schemes-ignored']);
    expect(explainNotBytes({})).toEqual([{ id: 'body-not-bytes', text: expect.stringMatching(/given as object/) }]);
  });
});

describe('other hints', () => {
  it.each([
    ['missing', 'header-missing', /is signing turned on/],
    ['malformed', 'header-malformed', /must look like t=<unix seconds>,v1=<64 hex characters>/],
    ['no_signatures', 'header-no-v1', /only v1/],
  ] as const)('header %s', (reason, id, hint) => {
    expect(explainHeaderFailure(reason)).toEqual([{ id, text: expect.stringMatching(hint) }]);
  });

  it.each([
    [-301.25, 300, /^clock skew: t is 301\.25 s behind .*replay/],
    [400, 300, /^clock skew: t is 400 s ahead .*NTP/],
  ])('skew %s with tolerance %s', (skew, tolerance, hint) => {
    expect(explainTimestamp(skew, tolerance)).toEqual([{ id: 'clock-skew', text: expect.stringMatching(hint) }]);
  });

  it.each([
    [300, '300'],
    [0.5, '0.5'],
    [1 / 3, '0.333'],
  ])('formatSeconds(%s) = %s', (seconds, text) => {
    expect(formatSeconds(seconds)).toBe(text);
  });
});
