/** The HTTP source: a fastify request becomes an Arrival for the pipeline (pipeline.ts). */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HopRef } from '../core/faults/index.js';
import type { Arrival, ArrivalConnection, ReadProblem } from './arrival.js';
import type { FaultSockets } from './fault-answer.js';

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
