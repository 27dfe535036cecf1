/**
 * `--forward-mode sync`: the receiver hands the delivery to the app before storing it and answers
 * the sender with the app's status, so the service's retry rules exercise the app's own handler.
 */
import { Agent } from 'undici';
import type { ForwardConfig } from '../config/listen-config.js';
import type { StoredDelivery } from '../store/store.js';
import { buildForwardRequest } from './forward-request.js';
import { postToTarget, type TargetAnswer } from './post-to-target.js';

export { senderAnswerFor } from './sender-answer.js';

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
