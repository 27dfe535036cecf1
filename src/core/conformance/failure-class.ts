/** The failure class the sender saw from what hookrelay answered (spec 6.4 table). */
import type { AttemptRecord } from '../records.js';
import type { RetryPolicy, RetryableClass } from '../retry-policy/policy.js';
import { TIMEOUT_SLACK } from './options.js';
import type { AnswerClass } from './types.js';

type Answer = Pick<AttemptRecord, 'status' | 'reason' | 'receivedAt' | 'finishedAt'>;

const SAYS_TIMEOUT = /hang|timeout|timed[ _-]?out|delay/i;
const SAYS_NETWORK = /reset|close|destroy|refused|econn|epipe/i;

/**
 * The class of one answer as the sender saw it: any answer given later than the attempt timeout
 * after arrival → timeout (nobody was waiting for it); 2xx → success; no response → timeout when the
 * reason names a hang (or delay/timeout), network when it names a reset or close, and otherwise
 * timeout only if the connection lasted about the attempt timeout; 408, 429, 410; 501/505 →
 * http_unsupported; other 5xx → http_5xx; 3xx (hookrelay only answers one when the sender did not
 * follow it: no Location, or past the hop limit) → redirect; other 4xx → http_4xx; anything
 * outside 200–599 → network (a malformed answer).
 * Total: any garbage in gives a class.
 */
export function classifyAnswer(answer: Answer, attemptTimeoutSeconds = 10): AnswerClass {
  const { status } = answer;
  if (status === null || typeof status !== 'number' || !Number.isFinite(status)) {
    const reason = typeof answer.reason === 'string' ? answer.reason : '';
    if (SAYS_TIMEOUT.test(reason)) return 'timeout';
    if (SAYS_NETWORK.test(reason)) return 'network';
    const lasted = answer.finishedAt - answer.receivedAt;
    // An unexplained end without an answer, about the timeout after arrival, is the sender giving up.
    return lasted >= attemptTimeoutSeconds * 1000 - TIMEOUT_SLACK.earlyMs ? 'timeout' : 'network';
  }
  // The sender's deadline started before hookrelay saw the request, so an answer later than the
  // timeout reached nobody: a conforming sender had already given up (e.g. `delay=15000`).
  if (answer.finishedAt - answer.receivedAt > attemptTimeoutSeconds * 1000) return 'timeout';
  // Not an HTTP status a client can act on: a malformed answer, as the built-in sender counts it.
  if (!Number.isInteger(status) || status < 200 || status > 599) return 'network';
  if (status <= 299) return 'success';
  if (status >= 300 && status <= 399) return 'redirect';
  if (status === 408) return 'http_408';
  if (status === 429) return 'http_429';
  if (status === 410) return 'http_410';
  if (status === 501 || status === 505) return 'http_unsupported';
  if (status >= 500 && status <= 599) return 'http_5xx';
  return 'http_4xx';
}

const RETRYABLE = new Set<string>(['timeout', 'network', 'http_408', 'http_429', 'http_5xx', 'http_4xx']);

/**
 * True when the policy retries after this class: it is in `retryOn` (spec 2.11; 6.4's "unless
 * http_4xx is in retryOn" generalised: a class left out of retryOn fails at once). Never true for
 * success, http_410, http_unsupported, redirect or blocked (spec 6.4 rule 2). `enabled: false` is
 * not looked at here: a retry then breaks the attempt count (max-attempts), not the class.
 */
export function isRetried(answerClass: AnswerClass, policy: RetryPolicy): boolean {
  return RETRYABLE.has(answerClass) && policy.retryOn.includes(answerClass as RetryableClass);
}
