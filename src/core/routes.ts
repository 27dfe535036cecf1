/**
 * `--route 'GLOB=URL'`: which target a delivery is handed to, by its trigger. Routes are tried in
 * the order given and the first whose glob matches wins; a delivery no route matches goes to the
 * fallback (`--forward-to`). Globs are the trigger globs of fault rules and bridge tokens
 * (`*` any run, `?` one character: ./faults/glob.ts).
 */
import { globMatch } from './faults/glob.js';
import { displayUrl } from './url-secrets.js';
import { TRIGGER_CATALOGUE } from './triggers.js';

export interface Route {
  /** A trigger glob, e.g. `vendor.*`. */
  glob: string;
  /** An http or https URL, normalised (`new URL(…).href`). */
  url: string;
}

/** What a trigger glob may hold: the characters of trigger names, `*` and `?`; at most 256. */
const TRIGGER_GLOB = /^[A-Za-z0-9._*?-]{1,256}$/;

/** True when `text` is a trigger name or glob (the shape bridge tokens and routes accept). */
export function isTriggerGlob(text: string): boolean {
  return TRIGGER_GLOB.test(text);
}

export type ParsedRoute = { ok: true; route: Route } | { ok: false; message: string };

/**
 * Parses one `GLOB=URL`. The glob ends at the first `=` (a glob holds none; a URL's query may).
 * Refuses a missing `=`, a glob that is not a trigger glob, and a URL that is not http(s). The
 * message names what was wrong, never more than 200 characters of the input.
 */
export function parseRoute(text: string): ParsedRoute {
  // Credentials in a route's URL are never echoed (url-secrets.ts).
  const safe = displayUrl(text);
  const shown = JSON.stringify(safe.length > 200 ? `${safe.slice(0, 200)}…` : safe);
  const eq = text.indexOf('=');
  if (eq < 0) return { ok: false, message: `${shown} has no "=": write GLOB=URL, e.g. 'vendor.*=http://127.0.0.1:3001/webhooks'` };
  const glob = text.slice(0, eq).trim();
  const target = text.slice(eq + 1).trim();
  if (glob === '') return { ok: false, message: `${shown} has no glob before "=": write GLOB=URL, e.g. 'vendor.*=http://127.0.0.1:3001/webhooks' ('*=URL' matches every trigger)` };
  if (!isTriggerGlob(glob)) {
    return { ok: false, message: `${shown}: the glob ${JSON.stringify(glob.slice(0, 64))} is not a trigger glob (letters, digits, ".", "_", "-", "*" any run, "?" one character)` };
  }
  // `localhost:3000` parses as a URL of scheme "localhost:": say what is missing, not what it parsed as.
  const noScheme = target.includes('://') ? '' : ' (the scheme is missing: write http://… or https://…)';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, message: `${shown}: ${JSON.stringify(displayUrl(target).slice(0, 200))} is not a URL${noScheme || ' (e.g. http://127.0.0.1:3001/webhooks)'}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: `${shown}: the target must be an http or https URL${noScheme || `, got ${url.protocol}`}` };
  return { ok: true, route: { glob, url: url.href } };
}

/** True when the glob matches at least one trigger of the catalogue (spec 6.2). */
export function matchesCatalogue(glob: string): boolean {
  return TRIGGER_CATALOGUE.some((entry) => globMatch(glob, entry.trigger));
}

/** Where a relay hands deliveries: the routes and the fallback, as the store (when it queues a job) and the relay share them. */
export interface RelayTargets {
  to: string;
  routes: readonly Route[];
}

/**
 * The target of a delivery with this trigger: the first route whose glob matches, else the
 * fallback. The one choice: the store queues each job for it, the relay hands on to it, a replay
 * with no URL and the sync passthrough go there.
 */
export function relayTargetOf(targets: RelayTargets, trigger: string): string {
  for (const route of targets.routes) if (globMatch(route.glob, trigger)) return route.url;
  return targets.to;
}

/** Every target a relay with these settings hands on to. */
export const relayTargetList = (targets: RelayTargets): string[] => [...new Set([targets.to, ...targets.routes.map((r) => r.url)])];
