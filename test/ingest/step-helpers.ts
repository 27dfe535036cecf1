/** Small in-memory collaborators for the ingest step tests: Arrivals built as pipeline.test.ts builds them. */
import type { Arrival, ArrivalConnection } from '../../src/ingest/arrival.js';
import { T0, type SignedRequest } from '../helpers/signed-delivery.js';

/** 1.5 s after the signature's t: inside any tolerance the tests use. */
export const NOW_MS = T0 * 1000 + 1500;

/** A connection that never ends and whose sender always waits out a delay. */
export const idleConnection: ArrivalConnection = {
  wait: async () => true,
  ended: () => new Promise<number>(() => {}),
};

/** A signed request as an HTTP arrival: header names lower-cased, raw headers flat as Node's. */
export function arrivalOf(req: SignedRequest, extra: Partial<Arrival> = {}): Arrival {
  const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    source: 'http',
    receivedAt: NOW_MS,
    rawBody: req.body,
    headers,
    rawHeaders: Object.entries(req.headers).flat(),
    connection: idleConnection,
    requestId: 'req-1',
    ...extra,
  };
}

/** A promise with its resolve and reject in hand, so a test decides when a step finishes. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
