/** A run's verdict narrowed to one delivery (`check --delivery`), with the run's suspension kept where it concerns it. */
import { isoTime } from '../core/conformance/numbers.js';
import { summarize, type DeliveryVerdict, type RunVerdict, type SuspensionVerdict } from '../core/conformance/index.js';

/**
 * The verdict of the delivery known as `deliveryId` (its first id, or another id it was sent
 * under) within `run`, judged with the whole run's knowledge (when the webhook was suspended).
 * The suspension rule keeps only what concerns this delivery: its attempts after the
 * suspension fail it; otherwise it passes (n/a when the webhook was never suspended). Null when
 * no delivery of the run carries that id.
 */
export function scopeToDelivery(run: RunVerdict, deliveryId: string): RunVerdict | null {
  const delivery =
    run.deliveries.find((d) => d.deliveryId === deliveryId) ?? run.deliveries.find((d) => d.otherDeliveryIds.includes(deliveryId));
  if (delivery === undefined) return null;
  const suspension = scopeSuspension(run.suspension, delivery);
  return { deliveries: [delivery], suspension, summary: summarize([delivery], suspension) };
}

function scopeSuspension(s: SuspensionVerdict, d: DeliveryVerdict): SuspensionVerdict {
  if (s.status === 'n/a' || s.suspendedAt === null) return s;
  const when = `suspended at ${isoTime(s.suspendedAt)} (${s.cause === 'gone' ? `410 to delivery ${s.causeDeliveryId ?? '(no id)'}` : `consecutive failed deliveries, the last ${s.causeDeliveryId ?? '(no id)'}`})`;
  const mine = s.findings.filter((f) => !f.ok && f.deliveryId === d.deliveryId);
  if (mine.length > 0) {
    return {
      ...s,
      status: 'fail',
      message: `${when}, yet this delivery's ${mine.length === 1 ? 'attempt' : 'attempts'} ${mine.map((f) => f.attempt).join(', ')} arrived after: ${mine.map((f) => f.observed).join('; ')}`,
      observed: `${mine.length} attempt${mine.length === 1 ? '' : 's'} of this delivery after the suspension`,
      findings: mine,
    };
  }
  const caused = s.causeDeliveryId !== null && s.causeDeliveryId === d.deliveryId;
  return {
    ...s,
    status: 'pass',
    message: `${when}; ${caused ? 'this delivery caused it' : 'no attempt of this delivery arrived after'}`,
    observed: 'no attempt of this delivery after the suspension',
    findings: [],
  };
}
