/**
 * The one hand-off: a stored delivery posted to a target, re-signed with the forward secret,
 * with its `x-service-*` headers and the hookrelay marks, under a deadline, the answer classified.
 * The relay worker, replay and sync passthrough all post through it; routing to several targets
 * changes only what `target` they pass.
 */
import type { Dispatcher } from 'undici';
import { startRelayTry, type TraceParent } from '../telemetry/tracing.js';
import { buildForwardRequest, type HandOffDelivery } from './forward-request.js';
import { sendToTarget, type TargetAnswer } from './post-to-target.js';

/** How deliveries are signed and posted: `--forward-secret`, `--forward-header`, `--forward-timeout`. */
export interface HandOffSettings {
  secret: string;
  headers: ReadonlyArray<[string, string]>;
  timeoutMs: number;
}

export interface HandOffResult {
  answer: TargetAnswer;
  startedAt: number;
  finishedAt: number;
  target: string;
}

export type { HandOffDelivery };

/** Whether the target took the delivery: it answered 2xx. */
export const targetTook = (answer: TargetAnswer): boolean => answer.status !== null && answer.status >= 200 && answer.status < 300;

/** Which try this is; `parent` (tracing only): the span the try hangs under, when not the delivery's arrival. */
export interface HandOffMark {
  relayTry: number;
  replay: boolean;
  parent?: TraceParent;
}

export interface HandOff {
  /** `relayTry` is 1 for a job's first try; replays count their own. */
  post(delivery: HandOffDelivery, target: string, mark: HandOffMark): Promise<HandOffResult>;
  /**
   * post() with a callback, for the relay's hot path: `done` is called once, with the answer or the
   * failure; send() itself throws only if the request cannot be built.
   */
  send(delivery: HandOffDelivery, target: string, mark: HandOffMark, done: (result: HandOffResult) => void): void;
}

export function createHandOff(settings: HandOffSettings, dispatcher: Dispatcher, clock: () => number): HandOff {
  const send: HandOff['send'] = (delivery, target, mark, done) => {
    // Tracing on only (telemetry/tracing.ts): the try's span, whose traceparent the request carries.
    const span = startRelayTry(delivery, target, mark, mark.parent);
    const startedAt = clock();
    const request = buildForwardRequest({ delivery, secret: settings.secret, nowSeconds: startedAt / 1000, relayTry: mark.relayTry, replay: mark.replay, extraHeaders: settings.headers, trace: span });
    if (span === null) {
      sendToTarget(dispatcher, target, request.headers, request.body, settings.timeoutMs, (answer) => done({ answer, startedAt, finishedAt: clock(), target }));
      return;
    }
    sendToTarget(dispatcher, target, request.headers, request.body, settings.timeoutMs, (answer) => {
      span.end(answer);
      done({ answer, startedAt, finishedAt: clock(), target });
    });
  };
  return {
    post: (delivery, target, mark) => new Promise((resolve) => send(delivery, target, mark, resolve)),
    send,
  };
}
