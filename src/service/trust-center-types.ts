/** The Trust Center and SoD records of spec 2.10 and 4.4 as the service's API answers them. */
import type { AccessEventRecord, AccessRequestRecord, AccessRequestStatus, VisitorTokenRecord } from '../core/trust-center-records.js';

/** What a reader accepts: every enumeration open to values the service may add (spec 9). */
type Open = string & {};

export type { AccessRequestStatus };
export type AccessRequest = AccessRequestRecord<Open>;

/** The single-request read (spec 2.10): adds the deciding key's name, the NDA time and the documents asked for. */
export interface AccessRequestDetail extends AccessRequest {
  decidedByApiClientName: string | null;
  ndaSignedAt: string | null;
  requestedResources: Array<{ id: string; title: string | null; isPublished: boolean; isRestricted: boolean }>;
}

export interface TrustCenterResource {
  id: string;
  isGated: boolean;
  isRestricted: boolean;
  ndaRequired: boolean;
  downloadAllowed: boolean;
  /** Fields beyond the flags are not shown by the spec; the emulator sends title, fileName, isPublished and more. */
  [field: string]: unknown;
}

export type VisitorToken = VisitorTokenRecord<Open>;

export type AccessEvent = AccessEventRecord<Open>;

export interface SodViolation {
  id: string;
  ruleId: string;
  subjectType: string;
  subjectId: string;
  status: 'open' | 'accepted' | 'resolved' | (string & {});
  evidence: { enforcementAtDetection?: string; [field: string]: unknown };
  [field: string]: unknown;
}

/** Spec 4.3 approve body; every field optional, unknown fields refused by the service (422). */
export interface ApproveBody {
  /** 1 to 365; default: the organization's access window. */
  ttlDays?: number;
  /** At most 500 characters: your ticket key or URL. */
  reference?: string;
  /** Default `all`: every gated, non-restricted document. */
  scope?: 'all' | 'all_gated_plus_selected' | 'selected';
  resourceIds?: string[];
}

/** Spec 4.3 reject body: `reason` is stored for reviewers and never sent to the visitor. */
export interface RejectBody {
  reason: string;
  reference?: string;
}

export interface ApproveResult {
  request: AccessRequestDetail;
  /** The token minted; its raw value is never returned. */
  visitorToken: VisitorToken;
  emailSent: boolean;
}

export interface AccessEventFilter {
  search?: string;
  eventType?: Array<'resource_view' | 'resource_download'>;
  channel?: string[];
  resourceId?: string[];
  visitorTokenId?: string;
  /** A date (YYYY-MM-DD) or an RFC 3339 date-time. */
  occurredFrom?: string;
  occurredTo?: string;
}

export interface SodViolationFilter {
  status?: 'open' | 'accepted' | 'resolved';
  ruleId?: string;
  subjectType?: string;
  subjectId?: string;
}
