/**
 * The Trust Center and SoD endpoints of spec 4.2 to 4.4, typed: access requests (list, detail,
 * approve, reject), resources, visitor tokens, document access events (cursor-paged, spec 4.1)
 * and SoD violations. Lists are async iterators of records; every answer is checked for the
 * fields a handler relies on before it is returned.
 */
import type { ApiClient } from './api-client.js';
import { cursorPages } from './cursor-pages.js';
import { numberedPages } from './numbered-pages.js';
import { readRecord } from './resources.js';
import { ServiceError } from './service-error.js';
import type {
  AccessEvent, AccessEventFilter, AccessRequest, AccessRequestDetail, AccessRequestStatus, ApproveBody, ApproveResult,
  RejectBody, SodViolation, SodViolationFilter, TrustCenterResource, VisitorToken,
} from './trust-center-types.js';

/** Spec 4.2: 1 to 500 access events a page. */
export const MAX_ACCESS_EVENTS_PAGE = 500;

const requestPath = (id: string) => `/trust-center/access-requests/${encodeURIComponent(id)}`;
const readRequest = (v: unknown) => readRecord<AccessRequest>(v, 'access request', ['id', 'status', 'visitorEmail']);
const readDetail = (v: unknown) => {
  const r = readRecord<AccessRequestDetail>(v, 'access request', ['id', 'status', 'visitorEmail']);
  return Array.isArray(r.requestedResources) ? r : { ...r, requestedResources: [] };
};
const readToken = (v: unknown) => readRecord<VisitorToken>(v, 'visitor token', ['id']);
const list = (values: string[] | undefined) => (values === undefined || values.length === 0 ? undefined : values.join(','));

export function createTrustCenterApi(client: ApiClient) {
  return {
    /** GET /trust-center/access-requests: every request of the key's organization, optionally of one status. */
    accessRequests(options: { status?: AccessRequestStatus } = {}): AsyncGenerator<AccessRequest> {
      return numberedPages(client, '/trust-center/access-requests', readRequest, { status: options.status });
    },
    /** GET /trust-center/access-requests/{id}: the detail form. Another organization's id is a 404 ServiceError. */
    async accessRequest(id: string): Promise<AccessRequestDetail> {
      return readDetail((await client.call('GET', requestPath(id))).data);
    },
    /** POST …/approve: 409 ACCESS_REQUEST_ALREADY_DECIDED when the request is no longer pending. */
    async approve(id: string, body: ApproveBody = {}): Promise<ApproveResult> {
      const data = (await client.call('POST', `${requestPath(id)}/approve`, { body })).data as Record<string, unknown> | null;
      if (data === null || typeof data !== 'object') throw new ServiceError('BAD_RESPONSE', 'POST …/approve: "data" must be {request, visitorToken, emailSent} (spec 4.3)');
      return { request: readDetail(data.request), visitorToken: readToken(data.visitorToken), emailSent: data.emailSent === true };
    },
    /** POST …/reject: the reason is stored for reviewers; nothing is sent to the visitor. */
    async reject(id: string, body: RejectBody): Promise<AccessRequestDetail> {
      return readDetail((await client.call('POST', `${requestPath(id)}/reject`, { body })).data);
    },
    resources(): AsyncGenerator<TrustCenterResource> {
      return numberedPages(client, '/trust-center/resources', (v) => readRecord<TrustCenterResource>(v, 'Trust Center resource', ['id']));
    },
    visitorTokens(): AsyncGenerator<VisitorToken> {
      return numberedPages(client, '/trust-center/visitor-tokens', readToken);
    },
    /** GET /trust-center/access-events, newest first, cursor-paged (spec 4.1, 4.2). */
    async *accessEvents(filter: AccessEventFilter = {}, options: { limit?: number } = {}): AsyncGenerator<AccessEvent> {
      const pages = cursorPages(client, {
        path: '/trust-center/access-events',
        limit: Math.min(MAX_ACCESS_EVENTS_PAGE, Math.max(1, options.limit ?? 100)),
        query: {
          search: filter.search, eventType: list(filter.eventType), channel: list(filter.channel), resourceId: list(filter.resourceId),
          visitorTokenId: filter.visitorTokenId, occurredFrom: filter.occurredFrom, occurredTo: filter.occurredTo,
        },
        read: (v) => readRecord<AccessEvent>(v, 'access event', ['id', 'occurredAt']),
        idOf: (e) => e.id,
      });
      for await (const page of pages) yield* page.items;
    },
  };
}

export function createSodApi(client: ApiClient) {
  return {
    /** GET /sod/violations with the filters of spec 4.4. */
    violations(filter: SodViolationFilter = {}): AsyncGenerator<SodViolation> {
      return numberedPages(client, '/sod/violations', (v) => readRecord<SodViolation>(v, 'SoD violation', ['id', 'status']), { ...filter });
    },
  };
}

export type TrustCenterApi = ReturnType<typeof createTrustCenterApi>;
export type SodApi = ReturnType<typeof createSodApi>;
