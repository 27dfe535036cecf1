/**
 * The hops of a redirect chain hookrelay serves itself (`redirect hops=N`, docs/faults.md):
 * POST `<path>/__hop/<n>/<N>-<status>-<nonce>`. Hop n < N redirects to hop n + 1 (recorded as
 * a faulted attempt, like the first redirect); hop N is handled normally — verified, checked,
 * stored — without consulting the rules again (pipeline.ts). The path carries the whole state
 * of the chain, so a restart in the middle of one does not break it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hopPrefix, parseHopPath, type HopRef } from '../core/faults/index.js';
import { errorEnvelopeText } from '../core/error-envelope.js';
import { JSON_TYPE } from './arrival.js';

export interface HopRouteOptions {
  path: string;
  clock: () => number;
  /** Runs the pipeline for an arrival at this hop, and writes its Outcome. */
  serve(request: FastifyRequest, reply: FastifyReply, hop: HopRef): Promise<FastifyReply>;
}

export function registerHopRoute(app: FastifyInstance, options: HopRouteOptions): void {
  app.post(`${hopPrefix(options.path)}*`, async (request, reply) => {
    const hop = parseHopPath(options.path, request.url);
    if (!hop.ok) {
      return reply.code(404).type(JSON_TYPE).send(errorEnvelopeText('NOT_FOUND', `not a redirect hop hookrelay served; deliveries go to POST ${options.path}`, options.clock()));
    }
    return options.serve(request, reply, hop.ref);
  });
}
