/**
 * `--route 'GLOB=URL [URL …]'` and `--route 'GLOB where COND and COND … = URL [URL …]'`: which
 * targets a delivery is handed to, by its trigger and, with `where`, by conditions on its body and
 * headers (./conditions/parse-conditions.ts). Routes are tried in the order given and the first
 * that matches (glob and every condition) wins; a delivery no route matches goes to the fallback
 * (`--forward-to`). `--also` routes, written the same, are not a choice: every one that matches
 * adds its targets besides (fan-out). A delivery gets one relay job per distinct target. Globs are
 * the trigger globs of fault rules and bridge tokens (`*` any run, `?` one character: ./faults/glob.ts).
 */
import type { Condition, ConditionProblem } from './conditions/condition.js';
import { factsOf, meetsAll, type DeliveryFacts, type DeliverySubject } from './conditions/judge-conditions.js';
import { describeProblems, parseConditions } from './conditions/parse-conditions.js';
import { globMatch } from './faults/glob.js';
import { orderKeyOf, type OrderSpec } from './pacing.js';
import { displayUrl } from './url-secrets.js';
import { TRIGGER_CATALOGUE } from './triggers.js';

export interface Route {
  /** A trigger glob, e.g. `vendor.*`. */
  glob: string;
  /** One or more http or https URLs, normalised (`new URL(…).href`), distinct, in the order written. */
  urls: string[];
  /** `where …`: every condition must hold too; absent for a route on the trigger alone. */
  where?: Condition[];
  /** An `--also` route: it adds its targets whenever it matches, and is never the first-match choice. */
  also?: true;
}

/** What a trigger glob may hold: the characters of trigger names, `*` and `?`; at most 256. */
const TRIGGER_GLOB = /^[A-Za-z0-9._*?-]{1,256}$/;

/** True when `text` is a trigger name or glob (the shape bridge tokens and routes accept). */
export function isTriggerGlob(text: string): boolean {
  return TRIGGER_GLOB.test(text);
}

export type ParsedRoute = { ok: true; route: Route } | { ok: false; message: string };

/** `GLOB where …`: the word `where` after the glob, spaces around it. */
const WITH_FILTER = /^(\s*)(\S+)(\s+where\s)/i;
/**
 * The targets of a filtered route: ` = URL [URL …]` at the end, each URL with its scheme (a URL holds
 * no space; a condition may hold "=" and words).
 */
const FILTER_TARGET = /\s=\s*((?:[A-Za-z][A-Za-z0-9+.-]*:\/\/\S+\s*)+)$/;
/** At most this many targets in one route: a fan-out wider than this is a typo or a broadcast, not a route. */
export const MAX_ROUTE_TARGETS = 16;

/**
 * Parses one `GLOB=URL [URL …]`. The glob ends at the first `=` (a glob holds none; a URL's query
 * may); the targets are separated by spaces. Refuses a missing `=`, a glob that is not a trigger
 * glob, and a URL that is not http(s). The message names what was wrong, never more than 200
 * characters of the input. `also`: the route is an `--also` route (the words of its examples say so).
 */
export function parseRoute(text: string, also = false): ParsedRoute {
  const parsed = parseRouteText(text);
  if (!parsed.ok || !also) return parsed;
  return { ok: true, route: { ...parsed.route, also: true } };
}

function parseRouteText(text: string): ParsedRoute {
  // Credentials in a route's URL are never echoed (url-secrets.ts).
  const safe = displayUrl(text);
  const shown = JSON.stringify(safe.length > 200 ? `${safe.slice(0, 200)}…` : safe);
  const filtered = WITH_FILTER.exec(text);
  if (filtered) return parseFilteredRoute(text, filtered, shown);
  const eq = text.indexOf('=');
  if (eq < 0) return { ok: false, message: `${shown} has no "=": write GLOB=URL, e.g. 'vendor.*=http://127.0.0.1:3001/webhooks'` };
  return routeOf(shown, text.slice(0, eq).trim(), text.slice(eq + 1).trim(), undefined);
}

/**
 * `GLOB where COND and COND … = URL`: every problem of the conditions at once, each with its
 * column in the whole route text.
 */
function parseFilteredRoute(text: string, head: RegExpExecArray, shown: string): ParsedRoute {
  const target = FILTER_TARGET.exec(text);
  const condStart = head[0].length;
  const condEnd = target ? target.index : text.length;
  const conditions = parseConditions(text.slice(condStart, condEnd), Array.from(text.slice(0, condStart)).length);
  const problems: ConditionProblem[] = conditions.ok ? [] : [...conditions.problems];
  if (!target || target.index < condStart) problems.push({ column: Array.from(text).length + 1, reason: "a route with a filter ends in ' = URL' (spaces before the =)" });
  if (problems.length > 0) return { ok: false, message: `${shown}: ${describeProblems(problems)}` };
  return routeOf(shown, head[2]!, target![1]!, conditions.ok ? conditions.conditions : undefined);
}

function routeOf(shown: string, glob: string, targetText: string, where: Condition[] | undefined): ParsedRoute {
  if (glob === '') return { ok: false, message: `${shown} has no glob before "=": write GLOB=URL, e.g. 'vendor.*=http://127.0.0.1:3001/webhooks' ('*=URL' matches every trigger)` };
  if (!isTriggerGlob(glob)) {
    return { ok: false, message: `${shown}: the glob ${JSON.stringify(glob.slice(0, 64))} is not a trigger glob (letters, digits, ".", "_", "-", "*" any run, "?" one character)` };
  }
  const texts = targetText.split(/\s+/).filter((t) => t !== '');
  if (texts.length === 0) return { ok: false, message: `${shown} has no target after "=": write GLOB=URL, e.g. 'vendor.*=http://127.0.0.1:3001/webhooks'` };
  if (texts.length > MAX_ROUTE_TARGETS) return { ok: false, message: `${shown} names ${texts.length} targets: at most ${MAX_ROUTE_TARGETS} in one route` };
  const urls: string[] = [];
  for (const target of texts) {
    const url = targetUrlOf(shown, target);
    if (typeof url !== 'string') return url;
    if (urls.includes(url)) return { ok: false, message: `${shown} names ${JSON.stringify(displayUrl(url).slice(0, 200))} twice: a delivery is handed to each target once` };
    urls.push(url);
  }
  return { ok: true, route: where === undefined ? { glob, urls } : { glob, urls, where } };
}

/** One target of a route, normalised; a refusal naming why. */
function targetUrlOf(shown: string, target: string): string | { ok: false; message: string } {
  // `localhost:3000` parses as a URL of scheme "localhost:": say what is missing, not what it parsed as.
  const noScheme = target.includes('://') ? '' : ' (the scheme is missing: write http://… or https://…)';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, message: `${shown}: ${JSON.stringify(displayUrl(target).slice(0, 200))} is not a URL${noScheme || ' (e.g. http://127.0.0.1:3001/webhooks)'}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: `${shown}: the target must be an http or https URL${noScheme || `, got ${url.protocol}`}` };
  return url.href;
}

/** True when the glob matches at least one trigger of the catalogue (spec 6.2). */
export function matchesCatalogue(glob: string): boolean {
  return TRIGGER_CATALOGUE.some((entry) => globMatch(glob, entry.trigger));
}

/** Where a relay hands deliveries: the routes and the fallback, as the store (when it queues a job) and the relay share them. */
export interface RelayTargets {
  to: string;
  routes: readonly Route[];
  /** The targets whose hand-offs are ordered (`--pace 'URL order=…'`), by URL. */
  order?: Readonly<Record<string, OrderSpec>>;
}

/** What the choice reads of a delivery: its trigger, and for filters its body and headers. */
export interface RouteSubject extends DeliverySubject {
  trigger: string;
}

/**
 * The targets of a delivery: those of the first (non-`--also`) route whose glob matches and whose
 * conditions all hold, else the fallback; then those of every `--also` route that matches, each
 * target once, in that order. The one choice: the store queues a job for each, the relay hands on to
 * them. The body is parsed only when a route whose glob matches has a condition on it, and then once.
 */
export function relayTargetsOf(targets: RelayTargets, delivery: RouteSubject): string[] {
  // No route: --forward-to alone, without the closures and copies below (once a delivery on the hot path).
  if (targets.routes.length === 0) return [targets.to];
  const facts: { of?: DeliveryFacts } = {};
  const matches = (route: Route) => globMatch(route.glob, delivery.trigger) && (route.where === undefined || meetsAll(route.where, (facts.of ??= factsOf(delivery))));
  const chosen = targets.routes.find((route) => route.also !== true && matches(route));
  const out = [...(chosen ? chosen.urls : [targets.to])];
  for (const route of targets.routes) {
    if (route.also !== true || !matches(route)) continue;
    for (const url of route.urls) if (!out.includes(url)) out.push(url);
  }
  return out;
}

/**
 * The first of a delivery's targets (relayTargetsOf): where a replay with no URL goes, where the
 * sync passthrough (one target only) hands on, and where a job queued before targets were kept goes.
 */
export function relayTargetOf(targets: RelayTargets, delivery: RouteSubject): string {
  return relayTargetsOf(targets, delivery)[0]!;
}

/** The order key of a delivery's job for `target` when that target is ordered, else null. */
export function orderKeyFor(targets: RelayTargets, target: string, delivery: RouteSubject): string | null {
  const order = targets.order !== undefined && Object.hasOwn(targets.order, target) ? targets.order[target] : undefined;
  return order === undefined ? null : orderKeyOf(order, delivery);
}

/** The jobs a delivery is queued as: one per target, with its order key when that target is ordered (else null). */
export function relayJobsOf(targets: RelayTargets, delivery: RouteSubject): Array<{ target: string; orderKey: string | null }> {
  return relayTargetsOf(targets, delivery).map((target) => ({ target, orderKey: orderKeyFor(targets, target, delivery) }));
}

/** The ordered targets whose dead jobs keep the later ones of their key waiting (`on-dead=block`). */
export function deadBlockingTargets(outbox: boolean | RelayTargets | undefined): string[] {
  if (outbox === undefined || typeof outbox === 'boolean' || outbox.order === undefined) return [];
  return Object.entries(outbox.order)
    .filter(([, order]) => order.onDead === 'block')
    .map(([target]) => target);
}

/** Every target a relay with these settings hands on to. */
export const relayTargetList = (targets: RelayTargets): string[] => [...new Set([targets.to, ...targets.routes.flatMap((r) => r.urls)])];
