/**
 * A scriptable sender for broken-sender tests: each call sends one attempt of a delivery right
 * now, over undici, signed as spec 6.3 says unless the script says otherwise. The script decides
 * the waits, the attempt numbers, the ids, the bodies: a broken sender is a few lines of it.
 *
 * It shares a manual clock with the receiver (harness.ts): "now" for its signatures is that
 * clock, and a wait moves it instead of sleeping. The receiver stamps each arrival and answer
 * with the same clock, so the gaps `check` measures are exactly the waits the script chose.
 */
import { Agent, request } from 'undici';
import { sign } from '../../src/core/signature/sign.js';
import { attemptHeaders, type OutgoingDelivery } from '../../src/sender/build-request.js';
import { TEST_SECRET, type ManualClock } from './harness.js';

export interface AttemptScript {
  delivery: OutgoingDelivery;
  /** x-service-delivery-attempt. */
  n: number;
  /** Signature `t` (default: now, in seconds). */
  t?: number;
  /** x-service-delivery instead of the delivery's id. */
  id?: string;
  /** Body bytes instead of the delivery's. */
  body?: Buffer;
}

export interface SenderDouble {
  /** Sends one attempt; resolves with the status (null: no answer). */
  attempt(script: AttemptScript): Promise<number | null>;
  /** The double's wait between attempts: moves the shared clock by `ms` (no real time passes). */
  wait(ms: number): Promise<void>;
  close(): Promise<void>;
}

export function senderDouble(url: string, clock: ManualClock): SenderDouble {
  const agent = new Agent();
  return {
    async attempt({ delivery, n, t, id, body }) {
      const bytes = body ?? delivery.body;
      const headers = attemptHeaders(delivery, n, sign(TEST_SECRET, bytes, t ?? Math.floor(clock.now() / 1000)));
      if (id !== undefined) headers['x-service-delivery'] = id;
      try {
        const res = await request(url, { method: 'POST', headers, body: bytes, dispatcher: agent });
        await res.body.dump();
        return res.statusCode;
      } catch {
        return null;
      }
    },
    async wait(ms) {
      clock.advance(ms);
    },
    async close() {
      await agent.close();
    },
  };
}
