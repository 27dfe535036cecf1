/** One attempt of a service delivery as `webhooks deliveries` and `reconcile` print it, its fields as text. */
import { printable } from '../reporter/printable.js';
import type { Attempt } from '../service/resources.js';

type ShownAttempt = Pick<Attempt, 'attemptNumber' | 'startedAt' | 'responseStatus' | 'failureClass' | 'errorMessage'>;

/** `#2  <started>  503  http_5xx  <error>`; an attempt with no answer and no failure yet is `in progress`. */
export function serviceAttemptLine(a: ShownAttempt): string {
  const verdict = a.failureClass ?? (a.responseStatus === null ? 'in progress' : 'ok');
  return `#${a.attemptNumber}  ${printable(a.startedAt ?? '', 30)}  ${a.responseStatus ?? '---'}  ${printable(verdict, 20)}${a.errorMessage ? `  ${printable(a.errorMessage, 80)}` : ''}`;
}
