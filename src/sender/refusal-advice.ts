/**
 * What to do about the receiver's refusals, said once after the summary: `send` sees only a status,
 * and a hookrelay receiver's refusal code (`x-hookrelay-error`), so the fix a new user needs (the
 * same secret on both sides) must be spelled out here, not left to the receiver's terminal.
 */
import type { DeliveryEvent } from '../core/retry-policy/delivery-events.js';

export interface RefusalTally {
  /** Refusal codes a hookrelay receiver named, with how many attempts got each. */
  codes: Map<string, number>;
  /** Attempts answered 400, 401 or 403 without a code: another receiver, perhaps refusing the signature. */
  unnamed4xx: number;
}

export const emptyTally = (): RefusalTally => ({ codes: new Map(), unnamed4xx: 0 });

/** Counts one event's refusal into the tally. */
export function tallyRefusal(tally: RefusalTally, event: DeliveryEvent): void {
  if (event.type !== 'attempt_finished') return;
  if (event.receiverCode !== undefined) tally.codes.set(event.receiverCode, (tally.codes.get(event.receiverCode) ?? 0) + 1);
  else if ([400, 401, 403].includes(event.attempt.responseStatus ?? 0)) tally.unnamed4xx++;
}

/**
 * The advice lines, one per kind of refusal; `signing` is how this run signs (the heading's words)
 * and what is wrong with its secret that send can see itself (`flaw`: "a trailing newline", describeSurroundingWhitespace's words).
 */
export function refusalAdvice(tally: RefusalTally, signing: { signed: boolean; how: string; flaw?: string | null }): string[] {
  const lines: string[] = [];
  for (const [code, count] of tally.codes) {
    const times = `${count} attempt${count === 1 ? '' : 's'}`;
    const flaw = code === 'SIGNATURE_MISMATCH' ? signing.flaw : null;
    const advice = flaw ? flawedSecretAdvice(signing.how, flaw) : ADVICE[code]?.(signing.how);
    if (advice) lines.push(`${advice} (${code}, ${times})`);
    else if (code === 'BAD_REQUEST') lines.push(`The receiver could not read ${times} as an HTTP request (${code}): it records none of them.`);
    else if (code !== 'STORE_UNAVAILABLE') lines.push(`The receiver refused ${times} with ${code}: its terminal, or \`hookrelay events list --status rejected\` run beside it, says why.`);
  }
  if (tally.unnamed4xx > 0 && signing.signed) {
    lines.push(`The receiver answered 400, 401 or 403 to ${tally.unnamed4xx} attempt${tally.unnamed4xx === 1 ? '' : 's'}: if it checks signatures, it needs the secret this run signs with (${signing.how}).`);
  }
  return lines;
}

/** A mismatch while this run's own secret has whitespace around it: that is the likely cause, not another secret. */
function flawedSecretAdvice(how: string, flaw: string): string {
  return (
    `The receiver could not verify the signature, and the secret this run signs with (${how}) has ${flaw}, which the service's secrets never have: strip it and send again. ` +
    'If the receiver still refuses, its secret is another one: sign with its secret (HOOKRELAY_SECRET or --secret), or start listen with this one.'
  );
}

const ADVICE: Record<string, (how: string) => string> = {
  SIGNATURE_MISMATCH: (how) =>
    `The receiver could not verify the signature: its secret is not the one this run signs with (${how}). ` +
    `Sign with its secret (HOOKRELAY_SECRET or --secret), or start listen with this one (the same, repeatable); with neither, both use the development secret of the same data folder.`,
  SIGNATURE_MISSING: () => 'The receiver needs a signature: leave out --unsigned, or start listen with --skip-verify (local experiments only).',
  NOT_FOUND: () => 'The receiver serves nothing at this path: `hookrelay listen` takes deliveries at POST /webhooks, or at its --path; check --to.',
  TIMESTAMP_TOO_OLD: () => "The receiver's clock is ahead of this one by more than its tolerance: sync the clocks, or raise listen's --tolerance.",
  TIMESTAMP_IN_FUTURE: () => "The receiver's clock is behind this one by more than its tolerance: sync the clocks, or raise listen's --tolerance.",
};
