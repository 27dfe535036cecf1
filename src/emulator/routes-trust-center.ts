/**
 * The Trust Center and SoD endpoints of spec 4.2, 4.3 and 4.4 with the scopes of section 5:
 * resources (trust-center-content:read), access requests and visitor tokens
 * (trust-center-access:read), approve and reject (trust-center-access:write), document access
 * events (trust-center-analytics:read, cursor-paged) and SoD violations (sod:read).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeCursor, encodeCursor } from '../core/emulator/cursor.js';
import { isoTime } from '../core/iso-time.js';
import { ACCESS_CHANNELS } from '../core/triggers.js';
import { ApiError, badRequest, dataEnvelope, notFound } from './api-error.js';
import { requireScope } from './auth.js';
import type { EmulatorContext } from './emulator-context.js';
import { intParam, stringParam } from './query.js';
import { key } from './routes-webhooks.js';
import {
  apiClientId, approveRequest, ensureResources, rejectRequest, requestDetail, requestView,
} from './trust-center.js';
import type { AccessEvent, AccessRequest, SodViolation, VisitorToken } from './trust-center-store.js';
import { instantOf } from '../core/conditions/exact-compare.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BARE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const EVENT_TYPES = ['resource_view', 'resource_download'];
const MAX_ARRAY = 100;

export function registerTrustCenterRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const stamp = () => isoTime(ctx.now());

  app.get('/v1/trust-center/resources', async (request) => {
    const k = key(request);
    requireScope(k, 'trust-center-content:read');
    const rows = ensureResources(ctx, k.organizationId);
    return paged(request, rows, stamp());
  });

  app.get('/v1/trust-center/access-requests', async (request) => {
    const k = key(request);
    requireScope(k, 'trust-center-access:read');
    const query = request.query as Record<string, unknown>;
    const status = stringParam(query, 'status');
    if (status !== undefined && !['pending', 'approved', 'rejected'].includes(status)) throw badRequest('status must be pending, approved or rejected', { field: 'status' });
    const rows = ctx.trustCenter.list<AccessRequest>('access_request', k.organizationId).map((r) => r.record).filter((r) => status === undefined || r.status === status);
    return paged(request, rows.map(requestView), stamp());
  });

  app.get('/v1/trust-center/access-requests/:id', async (request) => {
    const k = key(request);
    requireScope(k, 'trust-center-access:read');
    const found = ctx.trustCenter.get<AccessRequest>('access_request', k.organizationId, uuidParam(request));
    if (found === null) throw notFound('no access request with this id');
    return dataEnvelope(requestDetail(ctx, found), request.id, stamp());
  });

  app.post('/v1/trust-center/access-requests/:id/approve', async (request) => {
    const k = key(request);
    requireScope(k, 'trust-center-access:write');
    const result = approveRequest(ctx, k.organizationId, uuidParam(request), request.body, { by: 'api_client', apiClientId: apiClientId(k.name, k.organizationId) });
    ctx.wake();
    return dataEnvelope(result, request.id, stamp());
  });

  app.post('/v1/trust-center/access-requests/:id/reject', async (request) => {
    const k = key(request);
    requireScope(k, 'trust-center-access:write');
    const result = rejectRequest(ctx, k.organizationId, uuidParam(request), request.body, { by: 'api_client', apiClientId: apiClientId(k.name, k.organizationId) });
    ctx.wake();
    return dataEnvelope(result, request.id, stamp());
  });

  app.get('/v1/trust-center/visitor-tokens', async (request) => {
    const k = key(request);
    requireScope(k, 'trust-center-access:read');
    const rows = ctx.trustCenter.list<VisitorToken>('visitor_token', k.organizationId).map((r) => r.record);
    return paged(request, rows, stamp());
  });

  app.get('/v1/trust-center/access-events', async (request) => {
    const k = key(request);
    requireScope(k, 'trust-center-analytics:read');
    const query = request.query as Record<string, unknown>;
    if (query.page !== undefined) throw badRequest('page is not a parameter of this cursor-based list: pass cursor (cursor.nextCursor of the previous page)', { field: 'page' });
    const limit = intParam(query, 'limit', { min: 1, max: 500, default: 50 });
    const search = stringParam(query, 'search');
    if (search !== undefined && (search.length < 1 || search.length > 255)) throw badRequest('search must be 1 to 255 characters', { field: 'search' });
    const eventTypes = arrayParam(query, 'eventType', (v) => EVENT_TYPES.includes(v), `one of ${EVENT_TYPES.join(', ')}`);
    const channels = arrayParam(query, 'channel', (v) => (ACCESS_CHANNELS as readonly string[]).includes(v), `one of ${ACCESS_CHANNELS.join(', ')}`);
    const resourceIds = arrayParam(query, 'resourceId', (v) => UUID.test(v), 'a UUID')?.map((v) => v.toLowerCase());
    const visitorTokenId = stringParam(query, 'visitorTokenId');
    if (visitorTokenId !== undefined && !UUID.test(visitorTokenId)) throw badRequest('visitorTokenId must be a UUID', { field: 'visitorTokenId' });
    const from = timeParam(query, 'occurredFrom', 'start');
    const to = timeParam(query, 'occurredTo', 'end');
    // The cursor is bound to the organization and the filters: another list's cursor is refused.
    const listKey = `access-events:${k.organizationId}:${createHash('sha256').update(JSON.stringify([search, eventTypes, channels, resourceIds, visitorTokenId, from, to, limit])).digest('base64url')}`;
    const cursorText = stringParam(query, 'cursor');
    let beforeSeq = Number.MAX_SAFE_INTEGER;
    if (cursorText !== undefined) {
      const decoded = decodeCursor(cursorText, ctx.keys.cursorKey, listKey);
      if (!decoded.ok) throw new ApiError(400, 'INVALID_CURSOR', 'the cursor is malformed, altered, or belongs to another list; pass cursor.nextCursor back unchanged with the same filters');
      beforeSeq = decoded.position.beforeSeq;
    }
    const matches = ctx.trustCenter.list<AccessEvent>('access_event', k.organizationId).filter(({ seq, record: e }) => {
      if (seq >= beforeSeq) return false;
      if (search !== undefined && !e.visitorEmail.toLowerCase().includes(search.toLowerCase())) return false;
      if (eventTypes !== undefined && !eventTypes.includes(e.eventType)) return false;
      if (channels !== undefined && (e.channel === null || !channels.includes(e.channel))) return false;
      if (resourceIds !== undefined && (e.resourceId === null || !resourceIds.includes(e.resourceId))) return false;
      if (visitorTokenId !== undefined && e.visitorTokenId !== visitorTokenId.toLowerCase()) return false;
      const at = Date.parse(e.occurredAt);
      if (from !== undefined && at < from) return false;
      if (to !== undefined && at > to) return false;
      return true;
    });
    const page = matches.slice(0, limit);
    const hasMore = matches.length > limit;
    const nextCursor = hasMore ? encodeCursor({ webhookId: listKey, beforeSeq: page.at(-1)!.seq }, ctx.keys.cursorKey) : null;
    return dataEnvelope(page.map((r) => r.record), request.id, stamp(), { cursor: { nextCursor, hasMore, limit } });
  });

  app.get('/v1/sod/violations', async (request) => {
    const k = key(request);
    requireScope(k, 'sod:read');
    const query = request.query as Record<string, unknown>;
    const status = stringParam(query, 'status');
    if (status !== undefined && !['open', 'accepted', 'resolved'].includes(status)) throw badRequest('status must be open, accepted or resolved', { field: 'status' });
    const ruleId = uuidQuery(query, 'ruleId');
    const subjectType = stringParam(query, 'subjectType');
    if (subjectType !== undefined && subjectType.length > 64) throw badRequest('subjectType must be at most 64 characters', { field: 'subjectType' });
    const subjectId = uuidQuery(query, 'subjectId');
    const rows = ctx.trustCenter.list<SodViolation>('sod_violation', k.organizationId).map((r) => r.record).filter((v) =>
      (status === undefined || v.status === status) && (ruleId === undefined || v.ruleId === ruleId) && (subjectType === undefined || v.subjectType === subjectType) && (subjectId === undefined || v.subjectId === subjectId));
    return paged(request, rows, stamp());
  });
}

/** Choice (spec 4.4 shows no paging for these lists): page-based, page ≥ 1, limit 1 to 100 (default 100). */
function paged(request: FastifyRequest, rows: readonly unknown[], timestamp: string) {
  const query = request.query as Record<string, unknown>;
  const page = intParam(query, 'page', { min: 1, max: 100_000, default: 1 });
  const limit = intParam(query, 'limit', { min: 1, max: 100, default: 100 });
  const total = rows.length;
  return dataEnvelope(rows.slice((page - 1) * limit, page * limit), request.id, timestamp, { pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } });
}

function uuidParam(request: FastifyRequest): string {
  const id = (request.params as Record<string, string>).id ?? '';
  if (!UUID.test(id)) throw badRequest('id must be a UUID', { field: 'id' });
  return id.toLowerCase();
}

function uuidQuery(query: Record<string, unknown>, name: string): string | undefined {
  const value = stringParam(query, name);
  if (value !== undefined && !UUID.test(value)) throw badRequest(`${name} must be a UUID`, { field: name });
  return value?.toLowerCase();
}

/** A repeatable parameter (`eventType=a&eventType=b`, also `eventType[]=` and a comma list): at most 100 items, each valid. */
function arrayParam(query: Record<string, unknown>, name: string, valid: (v: string) => boolean, what: string): string[] | undefined {
  const raw = [query[name], query[`${name}[]`]].filter((v) => v !== undefined).flat();
  if (raw.length === 0) return undefined;
  const items = raw.flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  if (items.length > MAX_ARRAY) throw badRequest(`${name} may hold at most ${MAX_ARRAY} items`, { field: name });
  const bad = items.find((v) => typeof v !== 'string' || !valid(v));
  if (bad !== undefined) throw badRequest(`each ${name} must be ${what}`, { field: name });
  return items as string[];
}

/** occurredFrom/occurredTo: a date-time as given, or a bare date covering the whole day (UTC). */
function timeParam(query: Record<string, unknown>, name: string, edge: 'start' | 'end'): number | undefined {
  const value = stringParam(query, name);
  if (value === undefined) return undefined;
  // instantOf refuses a date the calendar has not (2026-02-30) and an hour 24, which Date.parse rolls over.
  let ms = Number.NaN;
  if (BARE_DATE.test(value)) {
    const day = instantOf(`${value}T00:00:00Z`);
    if (day) ms = day.seconds * 1000 + (edge === 'end' ? 86_400_000 - 1 : 0);
  } else if (DATE_TIME.test(value) && instantOf(value)) ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw badRequest(`${name} must be a date (YYYY-MM-DD) or an RFC 3339 date-time`, { field: name });
  return ms;
}
