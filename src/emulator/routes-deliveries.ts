/**
 * GET /webhooks/{id}/deliveries (spec 4.1, 4.2: cursor-based, newest first, each with its
 * attempts oldest first) and replay, whose path the spec leaves open:
 * POST /webhooks/{id}/deliveries/{deliveryId}/replay.
 */
import type { FastifyInstance } from 'fastify';
import { decodeCursor, encodeCursor } from '../core/emulator/cursor.js';
import { isoTime } from '../core/iso-time.js';
import { ApiError, badRequest, dataEnvelope } from './api-error.js';
import { requireScope } from './auth.js';
import type { EmulatorContext } from './emulator-context.js';
import { replayDelivery } from './fire-event.js';
import { intParam, stringParam } from './query.js';
import { idParam, key } from './routes-webhooks.js';
import { getWebhook } from './webhook-service.js';

export function registerDeliveryRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const stamp = () => isoTime(ctx.now());

  app.get('/v1/webhooks/:id/deliveries', async (request) => {
    const k = key(request);
    requireScope(k, 'webhooks:read');
    const webhook = getWebhook(ctx, k.organizationId, idParam(request));
    const query = request.query as Record<string, unknown>;
    // Spec 4.1: the legacy page parameter on a cursor endpoint answers 400.
    if (query.page !== undefined) throw badRequest('page is not a parameter of this cursor-based list: pass cursor (cursor.nextCursor of the previous page)', { field: 'page' });
    const limit = intParam(query, 'limit', { min: 1, max: 100, default: 50 });
    const cursorText = stringParam(query, 'cursor');
    let beforeSeq: number | null = null;
    if (cursorText !== undefined) {
      const decoded = decodeCursor(cursorText, ctx.keys.cursorKey, webhook.id);
      if (!decoded.ok) throw new ApiError(400, 'INVALID_CURSOR', 'the cursor is malformed, altered, or belongs to another list; pass cursor.nextCursor back unchanged');
      beforeSeq = decoded.position.beforeSeq;
    }
    const rows = ctx.deliveries.listForWebhook(webhook.id, beforeSeq, limit + 1);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const nextCursor = hasMore ? encodeCursor({ webhookId: webhook.id, beforeSeq: page.at(-1)!.seq }, ctx.keys.cursorKey) : null;
    return dataEnvelope(page.map((r) => r.delivery), request.id, stamp(), { cursor: { nextCursor, hasMore, limit } });
  });

  app.post('/v1/webhooks/:id/deliveries/:deliveryId/replay', async (request, reply) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const delivery = replayDelivery(ctx, k.organizationId, idParam(request), idParam(request, 'deliveryId'), request.body);
    return reply.code(201).send(dataEnvelope(delivery, request.id, stamp()));
  });
}
