/**
 * A scriptable sender for broken-sender tests: each call sends one attempt of a delivery right
 * now, over undici, signed as spec 6.3 says unless the script says otherwise. The script decides
 * the waits, the attempt numbers, the ids, the bodies: a broken sender is a few lines of it.
 */
import { setTimeout as senderWait } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { sign } from '../../src/core/signature/sign.js';
import { attemptHeaders, type OutgoingDelivery } from '../../src/sender/build-request.js';
import { TEST_SECRET } from './harness.js';

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
  /** The double's own wait between attempts (its timer, not the test's). */
  wait(ms: number): Promise<void>;
  close(): Promise<void>;
}

export function senderDouble(url: string): SenderDouble {
  const agent = new Agent();
  return {
    async attempt({ delivery, n, t, id, body }) {
      const bytes = body ?? delivery.body;
      const headers = attemptHeaders(delivery, n, sign(TEST_SECRET, bytes, t ?? Math.floor(Date.now() / 1000)));
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
      await senderWait(ms);
    },
    async close() {
      await agent.close();
    },
  };
}
