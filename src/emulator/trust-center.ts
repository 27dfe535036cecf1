/**
 * The Trust Center and segregation-of-duties behaviour of the emulator (spec 2.10, 4.2, 4.3, 4.4),
 * per organization, over trust-center-store.ts.
 * Decisions change state in one transaction with the deliveries of the event they cause (spec 6.2).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isoTime } from '../core/iso-time.js';
import type { FieldProblem } from '../core/retry-policy/validate-policy.js';
import { ApiError, notFound, validationError } from './api-error.js';
import type { EmulatorContext } from './emulator-context.js';
import { emitEvent, type FiredDelivery } from './emit-event.js';
import type { AccessEvent, AccessRequest, Resource, SodViolation, VisitorToken } from './trust-center-store.js';

/** Choice (spec: not shown): the organization's configured access window. */
export const DEFAULT_TTL_DAYS = 30;
const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The list form of an access request (spec 2.10): the record without the emulator's own fields. */
export function requestView(r: AccessRequest): Record<string, unknown> {
  const { grantedResourceIds: _g, ndaSignedAt: _n, ...rest } = r;
  return rest;
}

/** The detail form (spec 2.10): adds decidedByApiClientName, ndaSignedAt and requestedResources[]. */
export function requestDetail(ctx: EmulatorContext, r: AccessRequest): Record<string, unknown> {
  const client = r.decidedByApiClientId === null ? null : (ctx.keys.file.keys.find((k) => apiClientId(k.name, k.organizationId) === r.decidedByApiClientId)?.name ?? null);
  const requestedResources = r.requestedResourceIds.map((id) => {
    const res = ctx.trustCenter.get<Resource>('resource', r.organizationId, id);
    return { id, title: res?.title ?? null, isPublished: res?.isPublished ?? false, isRestricted: res?.isRestricted ?? false };
  });
  return { ...requestView(r), decidedByApiClientName: client, ndaSignedAt: r.ndaSignedAt ?? null, requestedResources };
}

/**
 * The API client id of a key (spec 5 rule 4: a key is attributed as an API client). Choice: a UUID
 * derived from the key's name and organization, stable across restarts, never the key itself.
 */
export function apiClientId(name: string, organizationId: string): string {
  const hex = createHash('sha256').update(`${organizationId}:${name}`, 'utf8').digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Sample documents of an organization, made once: gated, restricted, ungated, unpublished (spec 2.10 flags). */
export function ensureResources(ctx: EmulatorContext, organizationId: string): Resource[] {
  const existing = ctx.trustCenter.list<Resource>('resource', organizationId).map((r) => r.record);
  if (existing.length > 0) return existing;
  const at = isoTime(ctx.now());
  const make = (title: string, flags: Pick<Resource, 'isPublished' | 'isGated' | 'isRestricted' | 'ndaRequired' | 'downloadAllowed'>): Resource => ({
    id: randomUUID(),
    organizationId,
    title,
    fileName: `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.pdf`,
    contentHash: randomBytes(32).toString('hex'),
    ...flags,
    createdAt: at,
    updatedAt: at,
  });
  const resources = [
    make('SOC 2 Type II Report', { isPublished: true, isGated: true, isRestricted: false, ndaRequired: true, downloadAllowed: true }),
    make('Penetration Test Summary', { isPublished: true, isGated: true, isRestricted: false, ndaRequired: false, downloadAllowed: false }),
    make('Security Overview', { isPublished: true, isGated: false, isRestricted: false, ndaRequired: false, downloadAllowed: true }),
    make('Internal Audit Findings', { isPublished: true, isGated: true, isRestricted: true, ndaRequired: true, downloadAllowed: true }),
    make('Draft ISO 27001 Certificate', { isPublished: false, isGated: true, isRestricted: false, ndaRequired: false, downloadAllowed: true }),
  ];
  for (const r of resources) ctx.trustCenter.insert('resource', organizationId, r.id, r);
  return resources;
}

/** `emulate fire trustcenter.access_requested`: a pending request for gated documents, and its event. */
export function createPendingRequest(ctx: EmulatorContext, organizationId: string, n: number): { request: AccessRequest; deliveries: FiredDelivery[] } {
  return ctx.db.transaction(() => {
    const resources = ensureResources(ctx, organizationId);
    const request: AccessRequest = {
      id: randomUUID(),
      organizationId,
      visitorEmail: `visitor${n}@example.com`,
      visitorName: `Visitor ${n}`,
      companyName: 'Example Corp',
      reason: 'Vendor security review',
      rejectionReason: null,
      status: 'pending',
      decidedByUserId: null,
      decidedByApiClientId: null,
      decidedAt: null,
      decidedVia: null,
      decisionReference: null,
      autoRuleId: null,
      visitorTokenId: null,
      requestCountryCode: 'DE',
      requestCity: 'Berlin',
      requestedResourceIds: resources.filter((r) => r.isPublished && r.isGated).map((r) => r.id),
      createdAt: isoTime(ctx.now()),
      ndaSignedAt: null,
    };
    ctx.trustCenter.insert('access_request', organizationId, request.id, request);
    const deliveries = emitEvent(ctx, organizationId, 'trustcenter.access_requested', { accessRequestId: request.id });
    return { request, deliveries };
  })();
}

export type Decider = { by: 'api_client'; apiClientId: string } | { by: 'reviewer'; userId: string } | { by: 'access_rule'; ruleId: string };

export interface ApproveInput {
  ttlDays: number;
  reference: string | null;
  scope: 'all' | 'all_gated_plus_selected' | 'selected';
  resourceIds: string[];
}

const APPROVE_FIELDS = ['ttlDays', 'reference', 'scope', 'resourceIds'];
const REJECT_FIELDS = ['reason', 'reference'];
const SCOPES = ['all', 'all_gated_plus_selected', 'selected'];

function strictObject(body: unknown, known: string[]): { input: Record<string, unknown>; problems: FieldProblem[] } {
  // No body at all is an empty one; a JSON null is not an object.
  if (body === undefined) return { input: {}, problems: [] };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { input: {}, problems: [{ field: 'body', message: 'must be a JSON object' }] };
  const input = body as Record<string, unknown>;
  const problems = Object.keys(input).filter((k) => !known.includes(k)).map((k) => ({ field: k.slice(0, 64), message: `is not a recognised field (known: ${known.join(', ')})` }));
  return { input, problems };
}

/** Spec 4.3 approve body: strict; ttlDays 1 to 365; reference at most 500; scope; resourceIds uuid[]. */
export function checkApproveBody(body: unknown): ApproveInput {
  const { input, problems } = strictObject(body, APPROVE_FIELDS);
  // A field given as null is not a field left out: none of these is nullable (spec 4.3), so null is refused by its check.
  const given = (field: string, absent: unknown): unknown => (Object.hasOwn(input, field) ? input[field] : absent);
  const ttl = given('ttlDays', DEFAULT_TTL_DAYS);
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > 365) problems.push({ field: 'ttlDays', message: 'must be an integer from 1 to 365' });
  const reference = given('reference', undefined);
  if (reference !== undefined && (typeof reference !== 'string' || reference.length > 500)) problems.push({ field: 'reference', message: 'must be a string of at most 500 characters' });
  const scope = given('scope', 'all');
  if (typeof scope !== 'string' || !SCOPES.includes(scope)) problems.push({ field: 'scope', message: `must be one of ${SCOPES.join(', ')}` });
  const ids = given('resourceIds', []);
  if (!Array.isArray(ids) || ids.length > 100 || ids.some((id) => typeof id !== 'string' || !UUID.test(id))) problems.push({ field: 'resourceIds', message: 'must be an array of at most 100 UUIDs' });
  if (problems.length > 0) throw validationError(problems);
  return { ttlDays: ttl as number, reference: (reference as string | undefined) ?? null, scope: scope as ApproveInput['scope'], resourceIds: (ids as string[]).map((s) => s.toLowerCase()) };
}

/** Spec 4.3 reject body: strict; reason required; reference at most 500. */
export function checkRejectBody(body: unknown): { reason: string; reference: string | null } {
  const { input, problems } = strictObject(body, REJECT_FIELDS);
  // Choice: a reason of 1 to 2000 characters.
  if (typeof input.reason !== 'string' || input.reason.trim().length === 0 || input.reason.length > 2000) problems.push({ field: 'reason', message: 'is required: a string of 1 to 2000 characters' });
  const reference = Object.hasOwn(input, 'reference') ? input.reference : undefined;
  if (reference !== undefined && (typeof reference !== 'string' || reference.length > 500)) problems.push({ field: 'reference', message: 'must be a string of at most 500 characters' });
  if (problems.length > 0) throw validationError(problems);
  return { reason: input.reason as string, reference: (reference as string | undefined) ?? null };
}

function pendingRequest(ctx: EmulatorContext, organizationId: string, id: string): AccessRequest {
  const request = ctx.trustCenter.get<AccessRequest>('access_request', organizationId, id);
  if (request === null) throw notFound('no access request with this id');
  if (request.status !== 'pending') throw new ApiError(409, 'ACCESS_REQUEST_ALREADY_DECIDED', `the access request was already ${request.status}; nothing was changed`);
  return request;
}

function decisionFields(decider: Decider): Pick<AccessRequest, 'decidedVia' | 'decidedByApiClientId' | 'decidedByUserId' | 'autoRuleId'> {
  if (decider.by === 'api_client') return { decidedVia: 'api', decidedByApiClientId: decider.apiClientId, decidedByUserId: null, autoRuleId: null };
  if (decider.by === 'reviewer') return { decidedVia: 'app', decidedByApiClientId: null, decidedByUserId: decider.userId, autoRuleId: null };
  return { decidedVia: 'app', decidedByApiClientId: null, decidedByUserId: null, autoRuleId: decider.ruleId };
}

/** Approve (spec 4.3): grants per scope, mints a visitor token (raw token never stored or returned), emits access_approved. */
export function approveRequest(ctx: EmulatorContext, organizationId: string, id: string, body: unknown, decider: Decider) {
  const input = checkApproveBody(body);
  return ctx.db.transaction(() => {
    const request = pendingRequest(ctx, organizationId, id);
    const resources = ensureResources(ctx, organizationId);
    const byId = new Map(resources.map((r) => [r.id, r]));
    const refused = input.resourceIds.filter((rid) => byId.get(rid)?.isPublished !== true);
    if (refused.length > 0) throw validationError(refused.map((rid) => ({ field: 'resourceIds', message: `${rid} is not a published resource of this Trust Center; nothing was approved` })));
    const standard = resources.filter((r) => r.isPublished && r.isGated && !r.isRestricted).map((r) => r.id);
    const named = input.resourceIds;
    const granted = input.scope === 'all' ? standard : input.scope === 'all_gated_plus_selected' ? [...new Set([...standard, ...named])] : [...new Set(named)];
    const nowMs = ctx.now();
    const at = isoTime(nowMs);
    const raw = randomBytes(24).toString('base64url');
    const token: VisitorToken = {
      id: randomUUID(),
      organizationId,
      origin: 'access_request',
      visitorEmail: request.visitorEmail,
      visitorName: request.visitorName,
      companyName: request.companyName,
      tokenSuffix: raw.slice(-4),
      status: 'active',
      expiresAt: isoTime(nowMs + input.ttlDays * DAY_MS),
      revokedAt: null,
      lastUsedAt: null,
      createdAt: at,
      updatedAt: at,
    };
    ctx.trustCenter.insert('visitor_token', organizationId, token.id, token);
    const decided: AccessRequest = { ...request, ...decisionFields(decider), status: 'approved', decidedAt: at, decisionReference: input.reference, visitorTokenId: token.id, grantedResourceIds: granted };
    ctx.trustCenter.update(id, decided);
    emitEvent(ctx, organizationId, 'trustcenter.access_approved', { accessRequestId: id, visitorTokenId: token.id, decidedBy: decider.by });
    // The emulator sends no mail: emailSent reports that nothing reached a mail provider (documented choice).
    return { request: requestDetail(ctx, decided), visitorToken: token, emailSent: false };
  })();
}

/** Reject (spec 4.3): the reason is kept for reviewers; nothing is sent to the visitor; emits access_rejected. */
export function rejectRequest(ctx: EmulatorContext, organizationId: string, id: string, body: unknown, decider: Decider) {
  const input = checkRejectBody(body);
  return ctx.db.transaction(() => {
    const request = pendingRequest(ctx, organizationId, id);
    const decided: AccessRequest = { ...request, ...decisionFields(decider), status: 'rejected', decidedAt: isoTime(ctx.now()), decisionReference: input.reference, rejectionReason: input.reason };
    ctx.trustCenter.update(id, decided);
    emitEvent(ctx, organizationId, 'trustcenter.access_rejected', { accessRequestId: id, decidedBy: decider.by });
    return requestDetail(ctx, decided);
  })();
}

/** A visitor reads a granted document through an approved request's token: one access event, and resource_downloaded. */
export function recordDownload(ctx: EmulatorContext, organizationId: string, accessRequestId: string, resourceId: string | undefined, channel: string) {
  return ctx.db.transaction(() => {
    const request = ctx.trustCenter.get<AccessRequest>('access_request', organizationId, accessRequestId);
    if (request === null) throw notFound('no access request with this id');
    if (request.status !== 'approved' || request.visitorTokenId === null) throw validationError([{ field: 'accessRequestId', message: 'must name an approved request (it holds the visitor token)' }]);
    const granted = request.grantedResourceIds ?? [];
    const rid = resourceId ?? granted[0];
    if (rid === undefined || !granted.includes(rid)) throw validationError([{ field: 'resourceId', message: 'must be a document the approval granted' }]);
    const resource = ctx.trustCenter.get<Resource>('resource', organizationId, rid)!;
    const token = ctx.trustCenter.get<VisitorToken>('visitor_token', organizationId, request.visitorTokenId)!;
    const at = isoTime(ctx.now());
    const event: AccessEvent = {
      id: randomUUID(),
      occurredAt: at,
      eventType: 'resource_download',
      channel,
      watermarked: resource.ndaRequired,
      resourceId: resource.id,
      resourceTitle: resource.title,
      resourceFileName: resource.fileName,
      resourceContentHash: resource.contentHash,
      snapshotReconstructed: false,
      resourceDeleted: false,
      visitorTokenId: token.id,
      visitorEmail: token.visitorEmail,
      visitorName: token.visitorName,
      visitorCompany: token.companyName,
      visitorTokenOrigin: token.origin,
      ipPrefix: '203.0.113.0/24',
      country: request.requestCountryCode,
      userAgentFamily: 'Firefox',
    };
    ctx.trustCenter.insert('access_event', organizationId, event.id, event);
    ctx.trustCenter.update(token.id, { ...token, lastUsedAt: at, updatedAt: at });
    emitEvent(ctx, organizationId, 'trustcenter.resource_downloaded', {
      accessEventId: event.id, resourceId: resource.id, visitorTokenId: token.id, channel, watermarked: event.watermarked, occurredAt: at,
    });
    return event;
  })();
}

/** `sod.violation_detected`: a new open violation (a recurrence is always a new one, spec 4.4). */
export function detectViolation(ctx: EmulatorContext, organizationId: string): { violation: SodViolation; deliveries: FiredDelivery[] } {
  return ctx.db.transaction(() => {
    const violation: SodViolation = {
      id: randomUUID(),
      organizationId,
      ruleId: SAMPLE_RULE_ID,
      subjectType: 'user',
      subjectId: randomUUID(),
      status: 'open',
      evidence: { enforcementAtDetection: 'detect' },
      detectedAt: isoTime(ctx.now()),
      closedAt: null,
    };
    ctx.trustCenter.insert('sod_violation', organizationId, violation.id, violation);
    const deliveries = emitEvent(ctx, organizationId, 'sod.violation_detected', { sodViolationId: violation.id });
    return { violation, deliveries };
  })();
}

export const SAMPLE_RULE_ID = '5e0d0000-0000-4000-8000-000000000001';
