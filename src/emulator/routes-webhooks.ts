/** GET /webhooks/triggers, and the webhook rows of spec 4.2, 4.3 and 4.4. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { catalogueFor } from '../core/emulator/trigger-catalogue.js';
import { isoTime } from '../core/iso-time.js';
import { ApiError, badRequest, dataEnvelope } from './api-error.js';
import { requireScope } from './auth.js';
import type { EmulatorContext } from './emulator-context.js';
import type { ApiKey } from './key-material.js';
import { intParam } from './query.js';
import { createWebhook, deleteWebhook, getWebhook, updateWebhook } from './webhook-service.js';
import { webhookView } from './webhook-view.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function registerWebhookRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const stamp = () => isoTime(ctx.now());

  app.get('/v1/webhooks/triggers', async (request) => {
    requireScope(key(request), 'webhooks:read');
    return dataEnvelope(catalogueFor(ctx.plan), request.id, stamp());
  });

  app.get('/v1/webhooks', async (request) => {
    const k = key(request);
    requireScope(k, 'webhooks:read');
    const query = request.query as Record<string, unknown>;
    const page = intParam(query, 'page', { min: 1, max: 100_000, default: 1 });
    const limit = intParam(query, 'limit', { min: 1, max: 100, default: 100 });
    const total = ctx.webhooks.count(k.organizationId);
    const rows = ctx.webhooks.page(k.organizationId, (page - 1) * limit, limit);
    return dataEnvelope(rows.map(webhookView), request.id, stamp(), { pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } });
  });

  app.post('/v1/webhooks', async (request, reply) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const created = await createWebhook(ctx, k.organizationId, request.body);
    return reply.code(201).send(dataEnvelope(created, request.id, stamp()));
  });

  app.get('/v1/webhooks/:id', async (request) => {
    const k = key(request);
    requireScope(k, 'webhooks:read');
    return dataEnvelope(webhookView(getWebhook(ctx, k.organizationId, idParam(request))), request.id, stamp());
  });

  app.patch('/v1/webhooks/:id', async (request) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const id = idParam(request);
    return dataEnvelope(await updateWebhook(ctx, k.organizationId, id, request.body ?? {}), request.id, stamp());
  });

  app.delete('/v1/webhooks/:id', async (request) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    deleteWebhook(ctx, k.organizationId, idParam(request));
    return dataEnvelope({ deleted: true }, request.id, stamp());
  });
}

/** The authenticated key of a `/v1` request; 401 if the onRequest hook did not set one (defence in depth). */
export function key(request: FastifyRequest): ApiKey {
  if (request.apiKey === null) throw new ApiError(401, 'UNAUTHORIZED', 'missing Authorization header: send Authorization: Bearer <API key>');
  return request.apiKey;
}

export function idParam(request: FastifyRequest, name = 'id'): string {
  const value = (request.params as Record<string, string>)[name] ?? '';
  if (!UUID.test(value)) throw badRequest(`${name} must be a UUID`, { field: name });
  return value.toLowerCase();
}
