/**
 * `--forward-mode sync`: the receiver hands the delivery to the app before storing it and answers
 * the sender with the app's status, so the service's retry rules exercise the app's own handler.
 */
import { relayTargetOf, type RelayTargets, type Route } from '../core/routes.js';
import type { TraceParent } from '../telemetry/tracing.js';
import { createForwardAgent, type TargetTrust } from './forward-agent.js';
import { createHandOff, type HandOffDelivery, type HandOffResult, type HandOffSettings } from './hand-off.js';

export { senderAnswerFor } from './sender-answer.js';

export type PassthroughResult = HandOffResult;

export interface Passthrough {
  /** `parent`: the arrival's span, when tracing is on. */
  forward(delivery: HandOffDelivery, parent?: TraceParent): Promise<PassthroughResult>;
  close(): Promise<void>;
}

export interface PassthroughSettings extends HandOffSettings {
  /** `--forward-to`: the target when no route matches. */
  to: string;
  /** `--route GLOB=URL`, first match wins. */
  routes?: readonly Route[];
  trust?: TargetTrust;
}

export function createPassthrough(forward: PassthroughSettings, clock: () => number): Passthrough {
  const dispatcher = createForwardAgent(forward.trust, { keepAliveTimeout: 10_000 });
  const handOff = createHandOff(forward, dispatcher, clock);
  const targets: RelayTargets = { to: forward.to, routes: forward.routes ?? [] };
  return {
    forward(delivery, parent) {
      // Not stored yet: the trigger is the `x-service-event` header, which the envelope check has
      // already found equal to the body's `type`.
      const trigger = delivery.headers.find(([name]) => name.toLowerCase() === 'x-service-event')?.[1] ?? '';
      return handOff.post(delivery, relayTargetOf(targets, { trigger, rawBody: delivery.rawBody, headers: delivery.headers }), parent ? { relayTry: 1, replay: false, parent } : { relayTry: 1, replay: false });
    },
    close: () => dispatcher.close(),
  };
}
