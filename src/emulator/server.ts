/**
 * The emulated API's listener (fastify; `build` never listens, so tests use inject()). Under `/v1`:
 * the envelopes of spec 2.1 and 7 with a requestId, Bearer keys with scopes (5), the budgets of
 * section 8 with their headers, and 404 NOT_FOUND for any other path.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isoTime } from '../core/iso-time.js';
import { ApiError, badRequest, errorEnvelope } from './api-error.js';
import { authenticate } from './auth.js';
import type { EmulatorContext } from './emulator-context.js';
import type { ApiKey } from './key-material.js';
import type { RateLimiter } from './rate-limit.js';
import { registerWebhookRoutes } from './routes-webhooks.js';
import { registerDeliveryRoutes } from './routes-deliveries.js';
import { registerControlRoutes } from './routes-control.js';
import { registerTrustCenterRoutes } from './routes-trust-center.js';
import type { RandomSource } from '../core/seeded-random.js';

export const API_PREFIX = '/v1';
export const CONTROL_PATH = `${API_PREFIX}/_emulator`;
const BODY_LIMIT = 256 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey | null;
  }
}

export interface ServerOptions {
  ctx: EmulatorContext;
  /** null: no rate limits (`--rate-limit off`). */
  limiter: RateLimiter | null;
  random: RandomSource;
}

export function buildEmulatorServer(options: ServerOptions): FastifyInstance {
  const { ctx } = options;
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    trustProxy: false,
    return503OnClosing: true,
    genReqId: () => `req_${randomUUID()}`,
  });
  app.decorateRequest('apiKey', null);
  const stamp = () => isoTime(ctx.now());

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).replace(/^\uFEFF/, '');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(badRequest(`the body is not valid JSON: ${(err as Error).message.slice(0, 200)}`), undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `send the body as Content-Type: application/json (got ${String(request.headers['content-type']).slice(0, 100)})`), undefined);
  });

  app.addHook('onRequest', async (request, reply) => {
    // Decide on the route the router matched, never on the raw URL: the router decodes the path,
    // so `/%76%31/webhooks` reaches the `/v1/webhooks` handler. Unmatched paths keep the raw URL
    // (they end in 404 either way; a keyless `/v1/…` still answers 401 first).
    const path = request.routeOptions.url ?? request.url;
    if (!path.startsWith(`${API_PREFIX}/`) && path !== API_PREFIX) return;
    const key = authenticate(request.headers.authorization, ctx.keys);
    request.apiKey = key;
    if (options.limiter === null || path.startsWith(`${CONTROL_PATH}/`)) return;
    // Section 8: per API client; reads and writes have their own budgets.
    const budget = request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
    const decision = options.limiter.take(key.name, budget, ctx.now());
    reply.header('RateLimit-Limit', String(decision.limit));
    reply.header('RateLimit-Remaining', String(decision.remaining));
    reply.header('RateLimit-Reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      reply.header('Retry-After', String(decision.resetSeconds));
      throw new ApiError(429, 'TOO_MANY_REQUESTS', `the ${budget} budget of ${decision.limit} requests a minute is used up; retry after ${decision.resetSeconds} s`);
    }
  });

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => sendError(err, request, reply, stamp()));
  app.setNotFoundHandler((request, reply) => {
    const err = new ApiError(404, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`);
    return reply.code(404).send(errorEnvelope(err, request.id, stamp()));
  });

  registerWebhookRoutes(app, ctx);
  registerDeliveryRoutes(app, ctx);
  registerTrustCenterRoutes(app, ctx);
  registerControlRoutes(app, ctx, options.random);
  return app;
}

function sendError(err: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply, timestamp: string) {
  if (err instanceof ApiError) return reply.code(err.status).send(errorEnvelope(err, request.id, timestamp));
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  if (status === 413) return reply.code(413).send(errorEnvelope(new ApiError(413, 'PAYLOAD_TOO_LARGE', `the body is larger than ${BODY_LIMIT} bytes`), request.id, timestamp));
  if (status === 415) return reply.code(415).send(errorEnvelope(new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send the body as Content-Type: application/json'), request.id, timestamp));
  if (status < 500) return reply.code(400).send(errorEnvelope(badRequest(err.message.slice(0, 300)), request.id, timestamp));
  // Never the internal message: it could carry anything.
  return reply.code(500).send(errorEnvelope(new ApiError(500, 'INTERNAL_ERROR', 'internal error in the emulator'), request.id, timestamp));
}
