import type { AccessRequest } from 'hookrelay/client';

export type Decision = { approve: true; reference: string } | { approve: false; reason: string };

/** The company part of an email address, lowercased; null when there is none. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? email.slice(at + 1).trim().toLowerCase() : '';
  return domain.length > 0 ? domain : null;
}

/** Approve a requester at one of the allowed domains (subdomains included), reject the rest. */
export function decide(request: Pick<AccessRequest, 'id' | 'visitorEmail'>, allowedDomains: readonly string[]): Decision {
  const domain = emailDomain(request.visitorEmail);
  const allowed = domain !== null && allowedDomains.some((d) => domain === d || domain.endsWith(`.${d}`));
  // The domain is the requester's text: cut, so the reference (at most 500) and the reason stay within what the service takes.
  if (allowed) return { approve: true, reference: `auto-approve: ${domain.slice(0, 200)} is an allowed domain` };
  return { approve: false, reason: `auto-approve: ${domain === null ? 'no domain' : domain.slice(0, 200)} is not an allowed domain` };
}
