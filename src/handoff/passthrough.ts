/**
 * `--forward-mode sync`: the receiver hands the delivery to the app before storing it and answers
 * the sender with the app's status, so the service's retry rules exercise the app's own handler.
 */
import { Agent } from 'undici';
import { createHandOff, type HandOffDelivery, type HandOffResult, type HandOffSettings } from './hand-off.js';

export { senderAnswerFor } from './sender-answer.js';

export type PassthroughResult = HandOffResult;

export interface Passthrough {
  forward(delivery: HandOffDelivery): Promise<PassthroughResult>;
  close(): Promise<void>;
}

export function createPassthrough(forward: HandOffSettings & { to: string }, clock: () => number): Passthrough {
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const handOff = createHandOff(forward, dispatcher, clock);
  return {
    forward: (delivery) => handOff.post(delivery, forward.to, { relayTry: 1, replay: false }),
    close: () => dispatcher.close(),
  };
}
