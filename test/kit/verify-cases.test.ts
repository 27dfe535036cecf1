/** The shared table against the core itself: Node's verify and the envelope check, and the Web Crypto verify. */
import { describe, expect, it } from 'vitest';
import { checkEnvelope } from '../../src/core/envelope.js';
import { verify } from '../../src/core/signature/verify.js';
import { verifyAsync as verifyNodeHints } from '../../src/kit/verify-async-node.js';
import { verifyAsync } from '../../src/kit/verify-async.js';
import { ENVELOPE_CODES, SIGNATURE_CODES } from '../../src/kit/errors.js';
import { NOW, VERIFY_CASES, type VerifyCase } from './verify-cases.js';

function coreAnswer(c: VerifyCase, verdict: ReturnType<typeof verify>) {
  if (!verdict.ok) return { status: 400, code: SIGNATURE_CODES[verdict.reason], hints: verdict.hints };
  const envelope = checkEnvelope(c.sent.body, { deliveryId: c.sent.headers['x-service-delivery'], event: c.sent.headers['x-service-event'] });
  if (!envelope.ok) return { status: 400, code: ENVELOPE_CODES[envelope.problem], hints: [] };
  return { status: 200, secretIndex: verdict.secretIndex, type: envelope.envelope.type, notes: verdict.notes !== undefined };
}

describe('the shared verify table, against the core', () => {
  it.each(VERIFY_CASES)('$name', async (c) => {
    const options = { secrets: c.secrets, nowSeconds: NOW, explain: true };
    const sync = coreAnswer(c, verify(c.sent.body, c.sent.headers['x-service-signature'], options));
    const web = coreAnswer(c, await verifyAsync(c.sent.body, c.sent.headers['x-service-signature'], options));
    const webOnNode = coreAnswer(c, await verifyNodeHints(c.sent.body, c.sent.headers['x-service-signature'], options));
    if (c.expect.status === 200) {
      expect(sync).toEqual({ status: 200, secretIndex: c.expect.secretIndex, type: c.expect.type, notes: c.expect.notes === true });
      expect(web).toEqual(sync);
    } else {
      expect(sync).toMatchObject({ status: 400, code: c.expect.code });
      expect(web).toMatchObject({ status: 400, code: c.expect.code });
      if (c.expect.hint) expect((sync as { hints: string[] }).hints.join('\n')).toMatch(c.expect.hint);
      if (c.expect.webHint) expect((web as { hints: string[] }).hints.join('\n')).toMatch(c.expect.webHint);
    }
    // Node's verifyAsync: the Web Crypto verdict with the synchronous verify's hints.
    expect(webOnNode).toEqual(sync);
  });
});
