/** The canonical one-line form of a rule: answer, its options, match conditions, times, pre-verify, id. */
import { formatRange } from './attempt-range.js';
import { quoteValue } from './one-line-lexer.js';
import { formatRetryAfterText } from './retry-after.js';
import { DEFAULT_REDIRECT_STATUS, type FaultAnswer, type FaultRule } from './rule.js';

/**
 * Writes `rule` in the canonical one-line form, e.g. `503 retry-after=120 attempt=1`.
 * For any rule the parsers produce, `parseFaultRule(formatFaultRule(rule))` gives it back.
 */
export function formatFaultRule(rule: FaultRule): string {
  const parts = formatAnswer(rule.answer);
  const { trigger, delivery, attempt, arrival, p } = rule.match;
  if (trigger !== undefined) parts.push(`trigger=${quoteValue(trigger)}`);
  if (delivery !== undefined) parts.push(`delivery=${quoteValue(delivery)}`);
  if (attempt !== undefined) parts.push(`attempt=${formatRange(attempt)}`);
  if (arrival !== undefined) parts.push(`arrival=${formatRange(arrival)}`);
  if (p !== undefined) parts.push(`p=${String(p)}`);
  if (rule.limit !== undefined) parts.push(`times=${rule.limit.times}`);
  if (rule.beforeVerify) parts.push('pre-verify');
  if (rule.id !== undefined) parts.push(`id=${quoteValue(rule.id)}`);
  return parts.join(' ');
}

/** The answer part alone (`503 retry-after=120`, `hang slow-headers`, `redirect hops=4`). */
export function formatAnswer(answer: FaultAnswer): string[] {
  switch (answer.kind) {
    case 'status': {
      const parts = [String(answer.status)];
      if (answer.retryAfter !== undefined) parts.push(`retry-after=${quoteValue(formatRetryAfterText(answer.retryAfter))}`);
      for (const [name, value] of answer.headers ?? []) parts.push(`header=${quoteValue(`${name}:${value}`)}`);
      if (answer.body !== undefined) parts.push(`body=${quoteValue(answer.body)}`);
      return parts;
    }
    case 'delay':
      return [`delay=${answer.ms}`];
    case 'hang':
      return answer.slowHeaders ? ['hang', 'slow-headers'] : ['hang'];
    case 'redirect': {
      const parts = ['redirect'];
      if (answer.status !== DEFAULT_REDIRECT_STATUS) parts.push(`status=${answer.status}`);
      parts.push(answer.hops === null ? 'no-location' : `hops=${answer.hops}`);
      return parts;
    }
    case 'accept':
    case 'reset':
    case 'close':
      return [answer.kind];
  }
}
