/**
 * The emulator-only control surface, outside the spec: POST /v1/_emulator/events {type, data?,
 * count?} fires a trigger for the key's organization (scope webhooks:write; no rate limit).
 */
import type { FastifyInstance } from 'fastify';
import { isoTime } from '../core/retry-policy/iso-time.js';
import type { RandomSource } from '../core/seeded-random.js';
import { dataEnvelope } from './api-error.js';
import { requireScope } from './auth.js';
import type { EmulatorContext } from './emulator-context.js';
import { fireEvent } from './fire-event.js';
import { key } from './routes-webhooks.js';

export function registerControlRoutes(app: FastifyInstance, ctx: EmulatorContext, random: RandomSource): void {
  app.post('/v1/_emulator/events', async (request, reply) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const fired = fireEvent(ctx, k.organizationId, request.body, random);
    return reply.code(201).send(dataEnvelope(fired, request.id, isoTime(ctx.now())));
  });
}
