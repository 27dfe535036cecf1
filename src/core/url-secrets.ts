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

/** Targets are few and shown at every relay try: each is redacted once (a URL parse) and remembered. */
const shownUrls = new Map<string, string>();

/**
 * `text` with its credentials redacted; a text that is not a URL has everything between `//` and its last
 * `@` redacted, and the values of its secret query parameters, and is cut to 200 characters.
 */
export function displayUrl(text: string): string {
  if (plain(text)) return text;
  const known = shownUrls.get(text);
  if (known !== undefined) return known;
  const shown = redactUrl(text);
  if (shownUrls.size < 64) shownUrls.set(text, shown);
  return shown;
}

function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Greedy: a password may hold `#`, `/` or `?`, which would end a narrower match early. A text holding
    // several URLs (a route's targets) or one that does not parse keeps secret query values hidden too.
    return text
      .replace(/\/\/.*@/, `//${REDACTED}@`)
      .replace(/([?&;]([^=&\s#]*)=)([^&\s#]*)/g, (whole, head: string, name: string) => (SECRET_PARAM.test(name) ? `${head}${REDACTED}` : whole))
      .slice(0, 200);
  }
  let changed = false;
  const hadUser = url.username !== '' || url.password !== '';
  if (hadUser) {
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
  return hadUser ? href.replace('://', `://${REDACTED}@`) : href;
}

/**
 * The secrets of a URL in the forms they take inside it, for the one redactor (secret-hint.ts), which
 * replaces them wherever they appear: its `user:password@` (or `token@`) as written, and each secret
 * query parameter as `name=value`. Never the bare values: the redactor replaces every occurrence,
 * and a short or common one (`1`, `true`, `hookrelay`) would mangle every log line; displayUrl
 * hides them where the URL itself is printed.
 */
export function urlSecrets(text: string): string[] {
  if (plain(text)) return [];
  const found: string[] = [];
  // As written: the text between `//` and the last `@` before the path.
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/]*)@/.exec(text)?.[1] ?? /\/\/(.*)@/.exec(text)?.[1];
  if (authority) found.push(`${authority}@`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return found;
  }
  for (const [name, value] of url.searchParams) {
    if (SECRET_PARAM.test(name) && value !== '') found.push(`${name}=${value}`, `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return [...new Set(found)];
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
