/** The HTTP source's half of an Outcome: its action, turned into bytes on the socket. Nothing is decided or recorded here. */
import type { FastifyReply } from 'fastify';
import type { FaultSockets } from './fault-answer.js';
import { ERROR_CODE_HEADER, JSON_TYPE, type Action } from './outcome.js';

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
