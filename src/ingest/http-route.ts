/**
 * The HTTP source of the ingest pipeline (pipeline.ts): the receiver's routes take the raw bytes,
 * make an Arrival of the fastify request, hand it to the pipeline, and write its Outcome's action
 * back on the socket. Nothing is decided or recorded here. Redirect-chain hops live in hop-route.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorEnvelopeText } from '../core/error-envelope.js';
import type { HopRef } from '../core/faults/index.js';
import type { Arrival, ArrivalConnection, ReadProblem } from './arrival.js';
import type { FaultSockets } from './fault-answer.js';
import { registerHopRoute } from './hop-route.js';
import { ERROR_CODE_HEADER, JSON_TYPE, type Action } from './outcome.js';
import type { IngestPipeline } from './pipeline.js';

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
