/**
 * The certificate checks that fail (OpenSSL's verify codes, as Node reports them), and why each
 * happens: one list for every TLS client hookrelay runs (the hand-off to the app, the bridge client).
 */
const WHY: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed root that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate was issued by an authority that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate was issued by an authority that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate was issued by an authority that is not trusted',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: "its certificate does not name the peer's host",
};

/** Why a peer's certificate was not trusted, or null when `code` is not a certificate check. */
export function untrustedCertificate(code: string | undefined): string | null {
  return code !== undefined && Object.hasOwn(WHY, code) ? WHY[code]! : null;
}
