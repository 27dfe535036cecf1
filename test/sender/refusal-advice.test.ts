/** refusal-advice.ts: what `send` says after the summary about the receiver's refusals. */
import { describe, expect, it } from 'vitest';
import type { DeliveryEvent } from '../../src/core/retry-policy/delivery-events.js';
import { emptyTally, refusalAdvice, tallyRefusal } from '../../src/sender/refusal-advice.js';

function finished(status: number | null, receiverCode?: string): DeliveryEvent {
  return {
    type: 'attempt_finished',
    index: 0,
    deliveryId: 'd-1',
    attempt: { responseStatus: status } as never,
    outcome: {} as never,
    decision: { action: 'fail', why: 'not_in_retry_on' },
    scaledWaitMs: null,
    delivery: {} as never,
    ...(receiverCode === undefined ? {} : { receiverCode }),
  };
}
const SIGNED = { signed: true, how: '--secret whsec_…abcd' };

describe('refusalAdvice', () => {
  it('says nothing when nothing was refused', () => {
    const tally = emptyTally();
    tallyRefusal(tally, finished(200));
    tallyRefusal(tally, finished(503));
    expect(refusalAdvice(tally, SIGNED)).toEqual([]);
  });

  it('one line per code, with its count; the mismatch names how this run signs', () => {
    const tally = emptyTally();
    for (const code of ['SIGNATURE_MISMATCH', 'SIGNATURE_MISMATCH', 'TIMESTAMP_TOO_OLD', 'INVALID_JSON']) tallyRefusal(tally, finished(400, code));
    const lines = refusalAdvice(tally, SIGNED);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^The receiver could not verify the signature: its secret is not the one this run signs with \(--secret whsec_…abcd\)\. .*\(SIGNATURE_MISMATCH, 2 attempts\)$/);
    expect(lines[1]).toMatch(/clock is ahead of this one .*--tolerance\. \(TIMESTAMP_TOO_OLD, 1 attempt\)$/);
    expect(lines[2]).toBe('The receiver refused 1 attempt with INVALID_JSON: its terminal, or `hookrelay events list --status rejected` run beside it, says why.');
  });

  it("a mismatch while this run's secret has whitespace around it: names that, not another secret", () => {
    const tally = emptyTally();
    tallyRefusal(tally, finished(400, 'SIGNATURE_MISMATCH'));
    const [line] = refusalAdvice(tally, { ...SIGNED, flaw: 'a trailing newline' });
    expect(line).toMatch(/^The receiver could not verify the signature, and the secret this run signs with \(--secret whsec_…abcd\) has a trailing newline, .*: strip it and send again\. /);
    expect(line).not.toContain('its secret is not the one');
    expect(refusalAdvice(tally, { ...SIGNED, flaw: null })[0]).toContain('its secret is not the one this run signs with');
  });

  it('a 400, 401 or 403 from another receiver, signed: asks whether it has this secret; unsigned or a 404: nothing', () => {
    const tally = emptyTally();
    for (const status of [400, 401, 403, 404, 422]) tallyRefusal(tally, finished(status));
    expect(refusalAdvice(tally, SIGNED)).toEqual(['The receiver answered 400, 401 or 403 to 3 attempts: if it checks signatures, it needs the secret this run signs with (--secret whsec_…abcd).']);
    expect(refusalAdvice(tally, { signed: false, how: 'off' })).toEqual([]);
  });

  it('BAD_REQUEST (HTTP the receiver could not read) is not sent to a list of rejected attempts it never recorded', () => {
    const tally = emptyTally();
    tallyRefusal(tally, finished(400, 'BAD_REQUEST'));
    expect(refusalAdvice(tally, SIGNED)).toEqual(['The receiver could not read 1 attempt as an HTTP request (BAD_REQUEST): it records none of them.']);
  });

  it('STORE_UNAVAILABLE is the receiver\'s trouble, not the sender\'s: no advice', () => {
    const tally = emptyTally();
    tallyRefusal(tally, finished(503, 'STORE_UNAVAILABLE'));
    expect(refusalAdvice(tally, SIGNED)).toEqual([]);
  });
});
