/**
 * The emulator-only control surface, outside the spec (scope webhooks:write; no rate limit):
 * POST /v1/_emulator/events {type, data?, count?} fires a trigger for the key's organization;
 * POST /v1/_emulator/trust-center/access-requests/{id}/decide {decision, as, ...} decides as a
 * `reviewer` or an `access_rule`; POST /v1/_emulator/trust-center/downloads {accessRequestId,
 * resourceId?, channel?} records a visitor's download; POST /v1/_emulator/sod/violations/{id}/close
 * {status: accepted|resolved} closes a violation (terminal).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isoTime } from '../core/iso-time.js';
import type { RandomSource } from '../core/seeded-random.js';
import { ACCESS_CHANNELS } from '../core/triggers.js';
import { ApiError, badRequest, dataEnvelope, notFound, validationError } from './api-error.js';
import { requireScope } from './auth.js';
import type { EmulatorContext } from './emulator-context.js';
import { fireEvent } from './fire-event.js';
import { key } from './routes-webhooks.js';
import { approveRequest, recordDownload, rejectRequest, type Decider } from './trust-center.js';
import type { SodViolation } from './trust-center-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The person and the rule a decision made in the emulator is attributed to. */
export const EMULATED_REVIEWER_ID = '7e7e0000-0000-4000-8000-000000000001';
export const EMULATED_RULE_ID = '7e7e0000-0000-4000-8000-000000000002';

export function registerControlRoutes(app: FastifyInstance, ctx: EmulatorContext, random: RandomSource): void {
  const stamp = () => isoTime(ctx.now());

  app.post('/v1/_emulator/events', async (request, reply) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const fired = fireEvent(ctx, k.organizationId, request.body, random);
    return reply.code(201).send(dataEnvelope(fired, request.id, stamp()));
  });

  app.post('/v1/_emulator/trust-center/access-requests/:id/decide', async (request) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const id = idOf(request);
    const body = objectBody(request.body);
    const { decision, as, ...rest } = body;
    const problems = [];
    if (decision !== 'approve' && decision !== 'reject') problems.push({ field: 'decision', message: 'must be approve or reject' });
    if (as !== 'reviewer' && as !== 'access_rule') problems.push({ field: 'as', message: 'must be reviewer or access_rule (api_client decisions go through the spec\'s approve and reject)' });
    if (problems.length > 0) throw validationError(problems);
    const decider: Decider = as === 'reviewer' ? { by: 'reviewer', userId: EMULATED_REVIEWER_ID } : { by: 'access_rule', ruleId: EMULATED_RULE_ID };
    const result = decision === 'approve' ? approveRequest(ctx, k.organizationId, id, rest, decider) : rejectRequest(ctx, k.organizationId, id, rest, decider);
    ctx.wake();
    return dataEnvelope(result, request.id, stamp());
  });

  app.post('/v1/_emulator/trust-center/downloads', async (request, reply) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const body = objectBody(request.body);
    const known = ['accessRequestId', 'resourceId', 'channel'];
    const problems = Object.keys(body).filter((f) => !known.includes(f)).map((f) => ({ field: f.slice(0, 64), message: `is not a recognised field (known: ${known.join(', ')})` }));
    if (typeof body.accessRequestId !== 'string' || !UUID.test(body.accessRequestId)) problems.push({ field: 'accessRequestId', message: 'must be a UUID' });
    if (body.resourceId !== undefined && (typeof body.resourceId !== 'string' || !UUID.test(body.resourceId))) problems.push({ field: 'resourceId', message: 'must be a UUID' });
    const channel = body.channel ?? 'download';
    if (typeof channel !== 'string' || !(ACCESS_CHANNELS as readonly string[]).includes(channel)) problems.push({ field: 'channel', message: `must be one of ${ACCESS_CHANNELS.join(', ')}` });
    if (problems.length > 0) throw validationError(problems);
    const event = recordDownload(ctx, k.organizationId, (body.accessRequestId as string).toLowerCase(), (body.resourceId as string | undefined)?.toLowerCase(), channel as string);
    ctx.wake();
    return reply.code(201).send(dataEnvelope(event, request.id, stamp()));
  });

  app.post('/v1/_emulator/sod/violations/:id/close', async (request) => {
    const k = key(request);
    requireScope(k, 'webhooks:write');
    const id = idOf(request);
    const body = objectBody(request.body);
    const extra = Object.keys(body).filter((f) => f !== 'status');
    if (extra.length > 0 || (body.status !== 'accepted' && body.status !== 'resolved')) {
      throw validationError([...extra.map((f) => ({ field: f.slice(0, 64), message: 'is not a recognised field (known: status)' })), ...(body.status !== 'accepted' && body.status !== 'resolved' ? [{ field: 'status', message: 'must be accepted or resolved' }] : [])]);
    }
    const closed = ctx.db.transaction(() => {
      const v = ctx.trustCenter.get<SodViolation>('sod_violation', k.organizationId, id);
      if (v === null) throw notFound('no SoD violation with this id');
      if (v.status !== 'open') throw new ApiError(409, 'VIOLATION_CLOSED', `the violation is ${v.status}, which is terminal; a recurrence is a new violation`);
      const next: SodViolation = { ...v, status: body.status as 'accepted' | 'resolved', closedAt: stamp() };
      ctx.trustCenter.update(id, next);
      return next;
    })();
    return dataEnvelope(closed, request.id, stamp());
  });
}

function idOf(request: FastifyRequest): string {
  const id = (request.params as Record<string, string>).id ?? '';
  if (!UUID.test(id)) throw badRequest('id must be a UUID', { field: 'id' });
  return id.toLowerCase();
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw validationError([{ field: 'body', message: 'must be a JSON object' }]);
  return body as Record<string, unknown>;
}
