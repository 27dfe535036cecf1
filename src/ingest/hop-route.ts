/**
 * The hops of a redirect chain hookrelay serves itself (`redirect hops=N`, docs/faults.md):
 * POST `<path>/__hop/<n>/<N>-<status>-<nonce>`. Hop n < N redirects to hop n + 1 (recorded as
 * a faulted attempt, like the first redirect); hop N is handled normally — verified, checked,
 * stored — without consulting the rules again. The path carries the whole state of the chain,
 * so a restart in the middle of one does not break it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hopPrefix, parseHopPath, planHopArrival } from '../core/faults/index.js';
import type { Arrival } from './arrival.js';
import { errorBody } from './error-envelope.js';
import type { FaultStage } from './fault-stage.js';

export interface HopRouteOptions {
  path: string;
  clock: () => number;
  stage: FaultStage;
  read(request: FastifyRequest): Arrival;
  /** Normal handling with no fault rule; `note` goes in the attempt's record. */
  handle(request: FastifyRequest, reply: FastifyReply, arrival: Arrival, note: string): Promise<FastifyReply>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function registerHopRoute(app: FastifyInstance, options: HopRouteOptions): void {
  app.post(`${hopPrefix(options.path)}*`, async (request, reply) => {
    const hop = parseHopPath(options.path, request.url);
    if (!hop.ok) {
      return reply.code(404).type(JSON_TYPE).send(errorBody('NOT_FOUND', `not a redirect hop hookrelay served; deliveries go to POST ${options.path}`, options.clock()));
    }
    const arrival = options.read(request);
    const fault = planHopArrival(hop.ref, options.path);
    if (fault.plan.kind === 'pass') return options.handle(request, reply, arrival, fault.reason);
    await options.stage.carryOut(reply, arrival, fault, null);
    return reply;
  });
}
