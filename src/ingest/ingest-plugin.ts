/**
 * The receiver's routes, as an adapter of the ingest pipeline (pipeline.ts): raw bytes in, an
 * Arrival to the pipeline, its Outcome written back to the socket. Redirect-chain hops live in
 * hop-route.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HopRef } from '../core/faults/index.js';
import { errorBody } from './error-envelope.js';
import type { FaultSockets } from './fault-answer.js';
import { registerHopRoute } from './hop-route.js';
import { httpArrival } from './http-arrival.js';
import { JSON_TYPE } from './outcome.js';
import type { IngestPipeline } from './pipeline.js';
import { writeOutcome } from './reply-outcome.js';

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
      reply.code(405).header('allow', 'POST').type(JSON_TYPE).send(errorBody('METHOD_NOT_ALLOWED', `only POST is accepted on ${options.path}`, clock())),
  });
}
