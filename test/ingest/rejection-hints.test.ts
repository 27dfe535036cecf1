/** rejection-hints.ts: the receiver words the general question its own way, picking the hint by id, never by its wording. */
import { describe, expect, it, vi } from 'vitest';
import { noMatchQuestion } from '../../src/core/signature/explain-text.js';
import { explainRequest } from '../../src/ingest/explain-request.js';
import { explainSignature, inReceiverWords, otherSecretHint, receiverHints, type RefusalHint } from '../../src/ingest/rejection-hints.js';
import { envelopeBody, signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { arrivalOf } from './step-helpers.js';

const rewording = vi.hoisted(() => ({ on: false }));

// The library may reword its general question; the receiver must still replace it.
vi.mock('../../src/core/signature/explain-text.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/core/signature/explain-text.js')>();
  return {
    ...original,
    noMatchQuestion: (secretCount: number) => `${rewording.on ? 'reworded: ' : ''}${original.noMatchQuestion(secretCount)}`,
  };
});

const SETTINGS = { secrets: [TEST_SECRET], toleranceSeconds: 300, skipVerify: false, bodyLimitBytes: 1024 * 1024 };

const mismatchHints = (secrets: string[], req = signedRequest({ secret: 'whsec_someone_else' })) =>
  receiverHints(arrivalOf(req), 'signature', 'SIGNATURE_MISMATCH', { ...SETTINGS, secrets });

describe('inReceiverWords', () => {
  it('replaces the general question by its id, whatever its words', () => {
    const hints: RefusalHint[] = [{ id: 'no-match-question', text: 'any wording at all' }];
    expect(inReceiverWords(hints, 2)).toEqual([otherSecretHint(2)]);
  });

  it('keeps every other hint as it is, even one that reads like the question', () => {
    const lookalike = `${noMatchQuestion(1)}; but this hint is about the line ending`;
    const hints: RefusalHint[] = [
      { id: 'body-line-ending', text: lookalike },
      { id: 'body-over-limit', text: 'the body is over the limit' },
    ];
    expect(inReceiverWords(hints, 1)).toEqual([lookalike, 'the body is over the limit']);
  });
});

describe('receiverHints on a signature mismatch', () => {
  it("gives the receiver's words when no guess explains it, for one secret or several", () => {
    expect(mismatchHints([TEST_SECRET])).toEqual([otherSecretHint(1)]);
    expect(mismatchHints(['whsec_a_1', TEST_SECRET])).toEqual([otherSecretHint(2)]);
  });

  it('still does when the library rewords its general question', () => {
    rewording.on = true;
    try {
      const req = signedRequest({ secret: 'whsec_someone_else' });
      const explained = explainSignature(arrivalOf(req), SETTINGS);
      expect(explained?.ok === false && explained.hints[0]).toEqual({ id: 'no-match-question', text: expect.stringMatching(/^reworded: /) });
      expect(mismatchHints([TEST_SECRET], req)).toEqual([otherSecretHint(1)]);
    } finally {
      rewording.on = false;
    }
  });

  it('keeps a sharper guess in its own words', () => {
    const body = envelopeBody('dlv_hint_1');
    const signed = signedRequest({ body });
    const req = { ...signed, body: Buffer.concat([body, Buffer.from('\n')]) };
    const hints = mismatchHints([TEST_SECRET], req);
    expect(hints).toEqual([expect.stringMatching(/^the body was changed after signing: it matches the body with its trailing newline removed/)]);
  });
});

describe("explainRequest (verify, explain_rejection) gives the receiver's hints", () => {
  // Tour finding F8: for another secret, verify printed the library's general question instead.
  it.each(['capture', 'flags', 'stored'] as const)('for a request signed with another secret, from a %s', (source) => {
    for (const secrets of [[TEST_SECRET], ['whsec_a_1', TEST_SECRET]]) {
      const arrival = arrivalOf(signedRequest({ secret: 'whsec_someone_else' }));
      const explained = explainRequest(arrival, { secrets, toleranceSeconds: SETTINGS.toleranceSeconds, bodyLimitBytes: SETTINGS.bodyLimitBytes }, source);
      expect(explained.verdict.ok === false && explained.verdict.rejection.code).toBe('SIGNATURE_MISMATCH');
      expect(explained.hints).toEqual(receiverHints(arrival, 'signature', 'SIGNATURE_MISMATCH', { ...SETTINGS, secrets }));
      expect(explained.hints).toEqual([otherSecretHint(secrets.length)]);
    }
  });
});
