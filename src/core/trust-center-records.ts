/**
 * The Trust Center records of spec 2.10, written once: the emulator writes them and the service client
 * reads them. `Open` widens each enumeration: the client passes `string & {}` because spec 9 lets the
 * service add values a reader must accept; the emulator leaves it out and may write only the values named.
 */

export type AccessRequestStatus = 'pending' | 'approved' | 'rejected';

export interface AccessRequestRecord<Open = never> {
  id: string;
  organizationId: string;
  visitorEmail: string;
  visitorName: string | null;
  companyName: string | null;
  reason: string | null;
  rejectionReason: string | null;
  /** Spec 2.10 types it as a string; pending, approved and rejected are the values known. */
  status: AccessRequestStatus | Open;
  decidedByUserId: string | null;
  decidedByApiClientId: string | null;
  decidedAt: string | null;
  decidedVia: 'app' | 'api' | Open | null;
  decisionReference: string | null;
  autoRuleId: string | null;
  visitorTokenId: string | null;
  requestCountryCode: string | null;
  requestCity: string | null;
  requestedResourceIds: string[];
  createdAt: string;
}

/** Spec 2.10 names `active` only; the emulator also writes revoked and expired. */
export type VisitorTokenStatus = 'active' | 'revoked' | 'expired';

export interface VisitorTokenRecord<Open = never> {
  id: string;
  organizationId: string;
  origin: string;
  visitorEmail: string;
  visitorName: string | null;
  companyName: string | null;
  tokenSuffix: string;
  status: VisitorTokenStatus | Open;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AccessEventRecord<Open = never> {
  id: string;
  occurredAt: string;
  eventType: 'resource_view' | 'resource_download' | Open;
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
