/**
 * A URL as it may be shown: in a banner, a log line, a stored relay try, an export, an error. A user
 * name and password (`http://bob:pw@…`), a token as the user name (`https://TOKEN@…`), and the values of
 * query parameters whose names say they hold a secret (`?token=…`, `api_key=…`) are replaced by
 * `[redacted]`. The one place that decides it: everything that prints a URL calls displayUrl.
 */

const REDACTED = '[redacted]';

/** Query parameter names whose values are taken for secrets. */
const SECRET_PARAM = /token|key|secret|pass|pwd|auth|sig|credential|session/i;

/** An address that names no user and no query cannot hold a secret: given back as is, without parsing (the relay's hot path). */
const plain = (text: string): boolean => !text.includes('@') && !text.includes('?');

/** `text` with its credentials redacted; a text that is not a URL has anything between `//` and `@` redacted, and is cut to 200 characters. */
export function displayUrl(text: string): string {
  if (plain(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text.replace(/\/\/[^/?#]*@/, `//${REDACTED}@`).slice(0, 200);
  }
  let changed = false;
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
    changed = true;
  }
  for (const [name] of url.searchParams) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  if (!changed) return text;
  const href = url.href.replaceAll(encodeURIComponent(REDACTED), REDACTED);
  return text.includes('@') && !href.includes('@') ? href.replace('://', `://${REDACTED}@`) : href;
}

/** The secrets a URL carries (its user name and password, decoded and as written, and secret query values), for the one redactor (secret-hint.ts). */
export function urlSecrets(text: string): string[] {
  if (plain(text)) return [];
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    const userinfo = /\/\/([^/?#]*)@/.exec(text)?.[1];
    return userinfo ? [userinfo] : [];
  }
  const found: string[] = [];
  for (const part of [url.password, url.username]) {
    if (part === '') continue;
    found.push(part);
    const decoded = safeDecode(part);
    if (decoded !== part) found.push(decoded);
  }
  for (const [name, value] of url.searchParams) if (SECRET_PARAM.test(name) && value !== '') found.push(value, encodeURIComponent(value));
  return found;
}

/**
 * The `authorization` header a URL's user name and password stand for (Basic, RFC 7617), as curl
 * and browsers send it; null when the URL has neither. Node's fetch and undici's dispatch ignore them.
 */
export function basicAuthorization(url: URL): string | null {
  if (url.username === '' && url.password === '') return null;
  return `Basic ${Buffer.from(`${safeDecode(url.username)}:${safeDecode(url.password)}`).toString('base64')}`;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
