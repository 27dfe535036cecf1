/** The Trust Center and SoD records of spec 2.10 and 4.4 as the service's API answers them. */

export type AccessRequestStatus = 'pending' | 'approved' | 'rejected';

export interface AccessRequest {
  id: string;
  organizationId: string;
  visitorEmail: string;
  visitorName: string | null;
  companyName: string | null;
  reason: string | null;
  rejectionReason: string | null;
  /** Spec 2.10 types it as a string; pending, approved and rejected are the values known. */
  status: AccessRequestStatus | (string & {});
  decidedByUserId: string | null;
  decidedByApiClientId: string | null;
  decidedAt: string | null;
  decidedVia: 'app' | 'api' | (string & {}) | null;
  decisionReference: string | null;
  autoRuleId: string | null;
  visitorTokenId: string | null;
  requestCountryCode: string | null;
  requestCity: string | null;
  requestedResourceIds: string[];
  createdAt: string;
}

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

export interface VisitorToken {
  id: string;
  organizationId: string;
  origin: string;
  visitorEmail: string;
  visitorName: string | null;
  companyName: string | null;
  tokenSuffix: string;
  status: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  updatedAt: string | null;
}

export interface AccessEvent {
  id: string;
  occurredAt: string;
  eventType: 'resource_view' | 'resource_download' | (string & {});
  channel: string | null;
  watermarked: boolean | null;
  resourceId: string | null;
  resourceTitle: string | null;
  resourceFileName: string | null;
  resourceContentHash: string | null;
  snapshotReconstructed: boolean;
  resourceDeleted: boolean;
  visitorTokenId: string;
  visitorEmail: string;
  visitorName: string | null;
  visitorCompany: string | null;
  visitorTokenOrigin: string;
  ipPrefix: string | null;
  country: string | null;
  userAgentFamily: string | null;
}

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
