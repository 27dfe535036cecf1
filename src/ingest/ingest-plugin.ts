/**
 * The receiver's one route: raw bytes in, checks in the order of PRODUCT.md, a 2xx only after
 * the durable commit. size (413) → [pre-verify fault rules] → signature (400) → envelope (400)
 * → [fault rules] → store + dedupe → 2xx. Redirect-chain hops live in hop-route.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkEnvelope, type EnvelopeCheck } from '../core/envelope.js';
import { parseSignatureHeader } from '../core/signature/parse-signature-header.js';
import { verify } from '../core/signature/verify.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { RandomSource } from '../core/seeded-random.js';
import type { FaultDecider } from '../faults/rules-controller.js';
import { pairHeaders, StoreUnavailableError, type AttemptInput, type AttemptRecord, type DeliveryStore } from '../store/store.js';
import type { Passthrough, PassthroughResult } from '../handoff/passthrough.js';
import { senderAnswerFor } from '../handoff/sender-answer.js';
import { countSignatureHeaders, identify, readArrival, type Arrival } from './arrival.js';
import { errorBody, successBody } from './error-envelope.js';
import { createFaultSockets } from './fault-answer.js';
import { createFaultStage } from './fault-stage.js';
import { registerHopRoute } from './hop-route.js';
import { createPerKeyTurns } from './per-key-turns.js';
import { envelopeRejection, signatureRejection, type Rejection } from './rejection.js';

export interface IngestOptions {
  path: string;
  secrets: readonly string[];
  toleranceSeconds: number;
  skipVerify: boolean;
  bodyLimitBytes: number;
  store: DeliveryStore;
  hub: EventHub;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** The fault rules (issue 4); absent: every arrival is handled normally. */
  faults?: FaultDecider;
  /** Longest a `hang` holds a socket whose client never gives up (default 120 s). */
  hangCapMs?: number;
  /** Draws redirect-chain nonces (default Math.random). */
  random?: RandomSource;
  /** `--forward-mode sync`: only a 2xx from the app makes the delivery accepted. */
  passthrough?: Passthrough;
}

const NO_FAULTS: FaultDecider = {
  hasRules: () => false,
  usesArrivalCount: () => false,
  decide: () => ({ matched: false, state: { firedCounts: new Map() } }),
};

const JSON_TYPE = 'application/json; charset=utf-8';
const EMPTY_BODY = Buffer.alloc(0);

export async function ingestPlugin(app: FastifyInstance, options: IngestOptions): Promise<void> {
  const { store, hub, clock } = options;

  // Scoped to this plugin: every content type arrives as the exact bytes; nothing is
  // rejected on Content-Type before the signature is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.bodyLimitBytes }, (_req, body, done) => done(null, body));

  const passthroughTurns = createPerKeyTurns();
  const sockets = createFaultSockets({ clock, hangCapMs: options.hangCapMs });
  const faults = createFaultStage({
    faults: options.faults ?? NO_FAULTS,
    sockets,
    store,
    hub,
    clock,
    path: options.path,
    skipVerify: options.skipVerify,
    random: options.random ?? Math.random,
  });
  // Hung and delayed connections must not hold up a shutdown.
  app.addHook('preClose', (done) => {
    sockets.shutdown();
    done();
  });

  /**
   * Announces an attempt; with `persist`, records it first. A refusal's record joins the next
   * group commit before the answer goes out, so whatever the sender was told can be read back.
   */
  async function finish(attempt: AttemptInput, persist: boolean, requestId?: string): Promise<void> {
    if (persist) {
      await store.recordAttempt(attempt).catch(() => {
        /* the store is down: the answer says so; nothing was acknowledged */
      });
    }
    hub.emit('attempt', { attempt: { ...attempt, seq: 0 } satisfies AttemptRecord, skipVerify: options.skipVerify, requestId });
  }

  async function reject(reply: FastifyReply, arrival: Arrival, rejection: Rejection, signatureTimestamp: number | null): Promise<FastifyReply> {
    const now = clock();
    await finish(
      { ...identify(arrival), finishedAt: now, signatureTimestamp, outcome: 'rejected', status: rejection.status, reason: rejection.code, retryAfter: null },
      true,
      reply.request.id,
    );
    return reply.code(rejection.status).type(JSON_TYPE).send(errorBody(rejection.code, rejection.message, now));
  }

  // fastify leaves the body undefined when a request has neither a Content-Type nor a body.
  const read = (request: FastifyRequest): Arrival =>
    readArrival(request.headers, Buffer.isBuffer(request.body) ? request.body : EMPTY_BODY, clock());

  /**
   * One arrival, straight through. `hopNote` is set for the last hop of a redirect chain: it is
   * handled without the fault rules, and the note goes in its record.
   */
  async function handle(request: FastifyRequest, reply: FastifyReply, arrival: Arrival, hopNote: string | null) {
    let note = hopNote;
    let faultFired = false;
    if (hopNote === null && faults.wants(false)) {
      const pre = await faults.run(reply, arrival, false, null);
      if (pre.handled) return reply;
      ({ fired: faultFired, note } = pre);
    }

    let signatureTimestamp: number | null = null;
    let secretIndex: number | null = null;
    if (!options.skipVerify) {
      const verdict = verify(arrival.rawBody, arrival.signatureHeader, {
        secrets: options.secrets,
        toleranceSeconds: options.toleranceSeconds,
        nowSeconds: arrival.receivedAt / 1000,
      });
      if (!verdict.ok) {
        let message = verdict.message;
        // Node joins repeated headers with ", " — a valid signature header holds no space.
        if (verdict.reason === 'malformed' && (countSignatureHeaders(request.raw.rawHeaders) > 1 || /, t=/.test(arrival.signatureHeader ?? ''))) {
          message = 'several x-service-signature headers: send exactly one';
        }
        return reject(reply, arrival, signatureRejection(verdict.reason, message), verdict.timestamp ?? null);
      }
      signatureTimestamp = verdict.timestamp;
      secretIndex = verdict.secretIndex;
    } else {
      const parsed = parseSignatureHeader(arrival.signatureHeader);
      signatureTimestamp = parsed.ok ? parsed.header.timestamp : null;
    }

    const checked = checkEnvelope(arrival.rawBody, { deliveryId: arrival.deliveryId, event: arrival.event });
    if (!checked.ok) return reject(reply, arrival, envelopeRejection(checked.problem, checked.message), signatureTimestamp);

    // At most one rule answers an arrival: a pre-verify rule that fired settles it.
    if (hopNote === null && !faultFired && faults.wants(true)) {
      const post = await faults.run(reply, arrival, true, signatureTimestamp);
      if (post.handled) return reply;
      note = post.note;
    }

    // Sync passthrough: the app answers first; copies of one id take turns, so only one reaches it.
    if (options.passthrough) return passthroughTurns.run(checked.envelope.id, () => acceptChecked(request, reply, arrival, checked, signatureTimestamp, secretIndex, note));
    return acceptChecked(request, reply, arrival, checked, signatureTimestamp, secretIndex, note);
  }

  /** Hands on (sync passthrough), stores and dedupes, then answers. */
  async function acceptChecked(
    request: FastifyRequest,
    reply: FastifyReply,
    arrival: Arrival,
    checked: Extract<EnvelopeCheck, { ok: true }>,
    signatureTimestamp: number | null,
    secretIndex: number | null,
    note: string | null,
  ) {
    const { envelope } = checked;
    // An id already accepted is not handed on again.
    let handedOn: PassthroughResult | null = null;
    if (options.passthrough && !(await store.getDelivery(envelope.id))) {
      handedOn = await options.passthrough.forward({ id: envelope.id, rawBody: arrival.rawBody, headers: pairHeaders(request.raw.rawHeaders), receivedAt: arrival.receivedAt });
      const status = handedOn.answer.status;
      if (status === null || status < 200 || status >= 300) {
        hub.emit('relay', { deliveryId: envelope.id, status, ok: false, latencyMs: Math.round(handedOn.answer.latencyMs), replay: false, ...(handedOn.answer.error ? { error: handedOn.answer.error } : {}) });
        return reject(reply, arrival, senderAnswerFor(handedOn.answer), signatureTimestamp);
      }
    }
    const attempt: AttemptInput = {
      ...identify(arrival),
      finishedAt: arrival.receivedAt,
      signatureTimestamp,
      outcome: 'accepted',
      status: handedOn?.answer.status ?? 200,
      reason: note,
      retryAfter: null,
    };
    try {
      const result = await store.accept(
        {
          id: envelope.id,
          trigger: envelope.type,
          apiVersion: envelope.apiVersion,
          apiVersionKnown: checked.apiVersionKnown,
          receivedAt: arrival.receivedAt,
          rawBody: arrival.rawBody,
          rawHeaders: request.raw.rawHeaders,
          signature: options.skipVerify ? 'skipped' : 'valid',
          secretIndex,
          signatureTimestamp,
        },
        attempt,
      );
      const now = clock();
      const duplicate = result.outcome === 'duplicate';
      // In sync mode the sender gets the app's own 2xx (no body where the status forbids one).
      const status = handedOn?.answer.status ?? 200;
      void finish({ ...attempt, finishedAt: now, outcome: result.outcome, status }, false, request.id);
      if (handedOn) {
        const { answer, startedAt, finishedAt, target } = handedOn;
        store
          .recordRelay({ deliverySeq: result.deliverySeq, startedAt, finishedAt, status: answer.status, error: null, replay: false, target, try: 1, next: null })
          .catch(() => {});
        hub.emit('relay', { deliveryId: envelope.id, status: answer.status, ok: true, latencyMs: Math.round(answer.latencyMs), replay: false });
      }
      if (!duplicate) {
        hub.emit('delivery', {
          delivery: {
            seq: result.deliverySeq, id: envelope.id, trigger: envelope.type, apiVersion: envelope.apiVersion,
            apiVersionKnown: checked.apiVersionKnown, receivedAt: arrival.receivedAt, headers: [],
            signature: options.skipVerify ? 'skipped' : 'valid', secretIndex, signatureTimestamp,
            duplicateCount: 0, lastAttemptAt: arrival.receivedAt, bodyBytes: arrival.rawBody.length,
          },
        });
      }
      if (status === 204 || status === 205) return reply.code(status).send();
      return reply
        .code(status)
        .type(JSON_TYPE)
        .send(successBody({ deliveryId: envelope.id, duplicate, ...(checked.apiVersionKnown ? {} : { apiVersionUnknown: envelope.apiVersion }) }, now));
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      const now = clock();
      // Not awaited: recording into the store that just failed would hold the 503 back until the
      // write times out, past the sender's 10 s attempt timeout.
      void finish({ ...attempt, finishedAt: now, outcome: 'unavailable', status: 503, reason: 'STORE_UNAVAILABLE' }, true, request.id);
      request.log.error({ err }, 'store unavailable');
      return reply.code(503).type(JSON_TYPE).send(errorBody('STORE_UNAVAILABLE', 'the delivery could not be stored; nothing was acknowledged — retry later', now));
    }
  }

  app.post(options.path, (request, reply) => handle(request, reply, read(request), null));
  registerHopRoute(app, { path: options.path, clock, stage: faults, read, handle });
  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: options.path,
    handler: (_request, reply) =>
      reply.code(405).header('allow', 'POST').type(JSON_TYPE).send(errorBody('METHOD_NOT_ALLOWED', `only POST is accepted on ${options.path}`, clock())),
  });
}
