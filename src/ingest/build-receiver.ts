/**
 * The public receiver listener and the HTTP source of the ingest pipeline (pipeline.ts): the ingest
 * route, /healthz, /readyz, and nothing else — the console never shares it, so a tunnel to the
 * receiver cannot expose the console. The route takes the raw bytes, makes an Arrival of the fastify
 * request, hands it to the pipeline, and writes its Outcome's action back on the socket. Nothing is
 * decided or recorded here. Redirect-chain hops live in hop-route.ts.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { errorEnvelopeText } from '../core/error-envelope.js';
import type { HopRef } from '../core/faults/index.js';
import type { EventHub } from '../runtime/event-hub.js';
import { lazySchemaControllers } from '../runtime/lazy-schema-compilers.js';
import { type Action, type Arrival, type ArrivalConnection, ERROR_CODE_HEADER, JSON_TYPE, type ReadProblem } from './arrival.js';
import { createFaultSockets, type FaultSockets } from './fault-answer.js';
import { registerHopRoute } from './hop-route.js';
import type { IngestPipeline } from './pipeline.js';

/** The listener's own settings; the pipeline it hands each arrival to is the node's (build-node.ts). */
export interface ReceiverSettings {
  /** Deliveries are taken at POST path. */
  path: string;
  bodyLimitBytes: number;
  clock: () => number;
  hub: EventHub;
  /** Longest a `hang` holds a socket whose client never gives up (default 120 s). */
  hangCapMs?: number;
  /** Time allowed to receive a whole request (slow-body defence). */
  requestTimeoutMs?: number;
  /** Time allowed to receive the headers (slowloris defence). */
  headersTimeoutMs?: number;
  /** `GET /readyz`: can the store write, is the relay worker alive (absent: ready while listening). */
  readiness?: () => Promise<Readiness>;
  /** `--tls-cert`/`--tls-key` (PEM, already checked): serve HTTPS instead of HTTP. */
  tls?: { cert: string; key: string };
}

export type ReceiverOptions = ReceiverSettings & { pipeline: IngestPipeline };

/** What `/readyz` reports; `reason` says what is wrong when not ready. */
export interface Readiness {
  ready: boolean;
  store: 'writable' | 'unavailable';
  relay: 'alive' | 'stopped' | 'off';
  reason?: string;
}

/** A request id from a proxy in front (`x-request-id`) is kept when it is short and plain; else one is made. */
const PLAIN_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && PLAIN_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Client errors fastify raises before our handler runs: bodies it would not read, refused by the pipeline's first check. */
const FRAMEWORK_ERRORS: Record<string, ReadProblem> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'too_large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_length',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'empty',
};

export function buildReceiver(options: ReceiverOptions): FastifyInstance {
  // With TLS fastify's server is an https.Server; every route and hook here is the same, and the
  // Node server settings used below exist on both, hence one instance type.
  const app = Fastify({
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
    logger: false,
    bodyLimit: options.bodyLimitBytes,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    schemaController: lazySchemaControllers,
  });
  app.server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  // Node enforces the header and request timeouts on this tick (30 s by default): without a
  // shorter one, slow clients are cut up to 30 s late.
  (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;
  // Every answer names its request id, as every log line about it does.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  app.get('/healthz', async (_request, reply) =>
    reply.type(JSON_TYPE).send(`{"success":true,"data":{"status":"ok"},"timestamp":"${new Date(options.clock()).toISOString()}"}`),
  );

  // Readiness, unlike /healthz (liveness): 503 while the store cannot write or the relay worker has stopped.
  app.get('/readyz', async (_request, reply) => {
    const now = options.clock();
    let state: Readiness;
    try {
      state = options.readiness ? await options.readiness() : { ready: true, store: 'writable', relay: 'off' };
    } catch (err) {
      state = { ready: false, store: 'unavailable', relay: 'off', reason: (err as Error).message };
    }
    const { ready, reason, ...data } = state;
    if (ready) return reply.type(JSON_TYPE).send({ success: true, data, timestamp: new Date(now).toISOString() });
    return reply.code(503).type(JSON_TYPE).send(errorEnvelopeText('NOT_READY', reason ?? 'not ready', now, data));
  });

  const { pipeline } = options;
  const sockets = createFaultSockets({ clock: options.clock, hangCapMs: options.hangCapMs });
  // Hung and delayed connections must not hold up a shutdown.
  app.addHook('preClose', (done) => {
    sockets.shutdown();
    done();
  });
  app.register(ingestPlugin, { path: options.path, bodyLimitBytes: options.bodyLimitBytes, clock: options.clock, pipeline, sockets });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).header(ERROR_CODE_HEADER, 'NOT_FOUND').type(JSON_TYPE).send(errorEnvelopeText('NOT_FOUND', `nothing is served at ${request.method} ${request.url.slice(0, 200)}; deliveries go to POST ${options.path}`, options.clock())),
  );

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const problem = error.code && Object.hasOwn(FRAMEWORK_ERRORS, error.code) ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (problem) {
      const outcome = await pipeline.handle(unreadHttpArrival(request, reply, { sockets, clock: options.clock }, problem));
      return writeOutcome(reply, outcome.action, sockets);
    }
    const now = options.clock();
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).header(ERROR_CODE_HEADER, 'BAD_REQUEST').type(JSON_TYPE).send(errorEnvelopeText('BAD_REQUEST', error.message, now));
    }
    options.hub.emit('notice', { level: 'error', message: `receiver error: ${error.message}` });
    return reply.code(500).type(JSON_TYPE).send(errorEnvelopeText('INTERNAL', 'hookrelay failed to handle this request; nothing was acknowledged', now));
  });

  return app;
}

export interface IngestPluginOptions {
  path: string;
  bodyLimitBytes: number;
  clock: () => number;
  pipeline: IngestPipeline;
  sockets: FaultSockets;
}

export async function ingestPlugin(app: FastifyInstance, options: IngestPluginOptions): Promise<void> {
  const { pipeline, sockets, clock } = options;

  // Scoped to this plugin: every content type arrives as the exact bytes; nothing is
  // rejected on Content-Type before the signature is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.bodyLimitBytes }, (_req, body, done) => done(null, body));

  const serve = async (request: FastifyRequest, reply: FastifyReply, hop?: HopRef): Promise<FastifyReply> => {
    const outcome = await pipeline.handle(httpArrival(request, reply, { sockets, clock }, hop));
    return writeOutcome(reply, outcome.action, sockets);
  };

  app.post(options.path, (request, reply) => serve(request, reply));
  registerHopRoute(app, { path: options.path, clock, serve });
  app.route({
    method: ['GET', 'PUT', 'PATCH', 'DELETE'],
    url: options.path,
    handler: (_request, reply) =>
      reply.code(405).header('allow', 'POST').type(JSON_TYPE).send(errorEnvelopeText('METHOD_NOT_ALLOWED', `only POST is accepted on ${options.path}`, clock())),
  });
}

const EMPTY_BODY = Buffer.alloc(0);

export interface HttpArrivalContext {
  sockets: FaultSockets;
  clock: () => number;
}

/** A request whose body was read; `hop` when it came to a hop of a redirect chain hookrelay serves. */
export function httpArrival(request: FastifyRequest, reply: FastifyReply, ctx: HttpArrivalContext, hop?: HopRef): Arrival {
  const arrival: Arrival = {
    source: 'http',
    receivedAt: ctx.clock(),
    // fastify leaves the body undefined when a request has neither a Content-Type nor a body.
    rawBody: Buffer.isBuffer(request.body) ? request.body : EMPTY_BODY,
    headers: request.headers,
    rawHeaders: request.raw.rawHeaders,
    connection: connectionOf(reply, ctx),
    requestId: request.id,
  };
  if (hop) arrival.hop = hop;
  return arrival;
}

/** A request whose body fastify refused to read (too large, wrong length): refused first, as size is the first check. */
export function unreadHttpArrival(request: FastifyRequest, reply: FastifyReply, ctx: HttpArrivalContext, problem: ReadProblem): Arrival {
  return {
    source: 'http',
    receivedAt: ctx.clock(),
    rawBody: EMPTY_BODY,
    headers: request.headers,
    rawHeaders: request.raw.rawHeaders,
    connection: connectionOf(reply, ctx),
    requestId: request.id,
    unread: { problem, declaredBytes: Number(request.headers['content-length']) || 0 },
  };
}

function connectionOf(reply: FastifyReply, { sockets }: HttpArrivalContext): ArrivalConnection {
  return {
    wait: (ms) => sockets.delay(reply, ms),
    ended: () => sockets.ended(reply),
  };
}

/** An Outcome's action as bytes on the socket (or a reset, a close, a hang). */
export function writeOutcome(reply: FastifyReply, action: Action, sockets: FaultSockets): FastifyReply {
  switch (action.kind) {
    case 'answer':
      reply.code(action.status);
      if (action.code !== undefined) reply.header(ERROR_CODE_HEADER, action.code);
      return action.body === null ? reply.send() : reply.type(JSON_TYPE).send(action.body);
    case 'fault-answer':
      sockets.respond(reply, action.status, action.headers, action.body);
      return reply;
    case 'reset':
      sockets.reset(reply);
      return reply;
    case 'close':
      sockets.close(reply);
      return reply;
    case 'hang':
      sockets.hang(reply, action.statusLine);
      return reply;
    case 'none':
      // The sender is gone: fastify must not try to answer.
      reply.hijack();
      return reply;
  }
}
