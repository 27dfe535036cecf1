/**
 * `--forward-mode sync`: the receiver hands the delivery to the app before storing it and answers
 * the sender with the app's status, so the service's retry rules exercise the app's own handler.
 */
import { Agent } from 'undici';
import type { ForwardConfig } from '../config/listen-config.js';
import type { StoredDelivery } from '../store/store.js';
import { buildForwardRequest } from './forward-request.js';
import { postToTarget, type TargetAnswer } from './post-to-target.js';

export interface PassthroughResult {
  answer: TargetAnswer;
  startedAt: number;
  finishedAt: number;
  target: string;
}

export interface Passthrough {
  forward(delivery: Pick<StoredDelivery, 'id' | 'rawBody' | 'headers' | 'receivedAt'>): Promise<PassthroughResult>;
  close(): Promise<void>;
}

/** What the sender is told when the app did not answer 2xx. */
export function senderAnswerFor(answer: TargetAnswer): { status: number; code: string; message: string } {
  if (answer.status === null) {
    const timedOut = answer.error?.startsWith('timeout') ?? false;
    return timedOut
      ? { status: 504, code: 'TARGET_TIMEOUT', message: `the forward target did not answer in time (${answer.error})` }
      : { status: 502, code: 'TARGET_UNREACHABLE', message: `the forward target could not be reached (${answer.error ?? 'no answer'})` };
  }
  // A redirect is not followed, and is not passed on either: the sender would follow it elsewhere.
  if (answer.status < 400) return { status: 502, code: `TARGET_STATUS_${answer.status}`, message: `the forward target answered ${answer.status}; redirects are not followed` };
  return { status: answer.status, code: `TARGET_STATUS_${answer.status}`, message: `the forward target answered ${answer.status}; the delivery was not accepted` };
}

export function createPassthrough(forward: ForwardConfig, clock: () => number): Passthrough {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  return {
    async forward(delivery) {
      const startedAt = clock();
      const request = buildForwardRequest({ delivery, secret: forward.secret, nowSeconds: startedAt / 1000, relayTry: 1, replay: false, extraHeaders: forward.headers });
      const answer = await postToTarget(dispatcher, forward.to, request.headers, request.body, forward.timeoutMs);
      return { answer, startedAt, finishedAt: clock(), target: forward.to };
    },
    close: () => dispatcher.close(),
  };
}
