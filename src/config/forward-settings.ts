/**
 * The hand-off settings `listen` and `connect` share beyond `--forward-to`: `--route 'GLOB=URL …'` or
 * `--route 'GLOB where COND and … = URL …'` (repeatable; HOOKRELAY_ROUTE one per line; config key
 * "route", an array of the same texts), `--also` written the same (HOOKRELAY_ALSO, "also": fan-out
 * besides the route that takes a delivery) and the trust of https
 * targets (`--forward-insecure` or `--forward-ca FILE`) and how they are reached (`--forward-proxy URL`).
 */
import { contradictionOf } from '../core/conditions/contradiction.js';
import { resolvePacing, type PaceSettings } from '../core/pacing.js';
import { matchesCatalogue, parseRoute, relayTargetList, type Route } from '../core/routes.js';
import type { TargetTrust } from '../handoff/forward-agent.js';
import { parseForwardHeader } from '../handoff/forward-request.js';
import type { Resolved } from './resolve-config.js';
import { secretFlagWarning } from './secret-flags.js';
import { hasCredentials, proxySource } from './service-settings.js';
import { readCaFile } from './tls-files.js';

export interface ForwardExtras {
  routes: Route[];
  trust: TargetTrust;
  pacing: PaceSettings;
}

/** Reads the routes and the trust; pushes every problem and warning. */
export function resolveForwardExtras(resolved: Resolved, configFile: string, problems: string[], warnings: string[]): ForwardExtras {
  const { values, sources } = resolved;
  const texts = (values.route as string[] | undefined) ?? [];
  const where = sources.route === 'file' ? `${configFile} "route"` : sources.route === 'env' ? 'HOOKRELAY_ROUTE' : '--route';
  const alsoTexts = (values.also as string[] | undefined) ?? [];
  const alsoWhere = sources.also === 'file' ? `${configFile} "also"` : sources.also === 'env' ? 'HOOKRELAY_ALSO' : '--also';
  const routes = [...parseRoutes(texts, where, problems, warnings), ...parseRoutes(alsoTexts, alsoWhere, problems, warnings, true)];

  const forwardToGiven = values.forwardTo !== undefined || (sources.forwardTo !== undefined && sources.forwardTo !== 'default');
  if (!forwardToGiven && texts.length > 0) {
    problems.push(`${where} needs --forward-to: it is where a delivery goes when no route matches its trigger`);
  }
  if (!forwardToGiven && alsoTexts.length > 0) {
    problems.push(`${alsoWhere} needs --forward-to: an --also route adds targets besides the route or --forward-to that takes each delivery`);
  }
  if (values.forwardMode === 'sync' && routes.some((route) => route.also === true || route.urls.length > 1)) {
    problems.push(`--forward-mode sync hands each delivery to one target while the sender waits: ${alsoTexts.length > 0 ? alsoWhere : `${where} with several targets`} needs the async relay (leave --forward-mode out)`);
  }
  const trust: TargetTrust = { insecure: values.forwardInsecure === true, ca: null };
  const caFile = values.forwardCa as string | undefined;
  if (trust.insecure && caFile !== undefined) {
    problems.push('--forward-insecure and --forward-ca: give one of them (--forward-ca trusts one certificate; --forward-insecure trusts any)');
  } else if (!forwardToGiven && (trust.insecure || caFile !== undefined)) {
    problems.push(`${trust.insecure ? '--forward-insecure' : '--forward-ca'} has no effect without --forward-to`);
  } else if (caFile !== undefined) {
    const read = readCaFile('--forward-ca', caFile);
    if (read.ok) Object.assign(trust, { ca: read.pem, caFile });
    else problems.push(read.message);
  }
  const proxyText = values.forwardProxy as string | undefined;
  if (proxyText !== undefined) {
    const from = sources.forwardProxy === 'file' ? `${configFile} "forwardProxy"` : sources.forwardProxy === 'env' ? 'HOOKRELAY_FORWARD_PROXY' : '--forward-proxy';
    if (!forwardToGiven) problems.push(`${from} has no effect without --forward-to`);
    else {
      const proxy = proxySource({ value: proxyText, from }, problems);
      if (proxy) {
        trust.proxy = proxy;
        if (from === '--forward-proxy' && hasCredentials(proxy)) warnings.push(secretFlagWarning('--forward-proxy (its user name and password)', 'HOOKRELAY_FORWARD_PROXY'));
      }
    }
  }
  const paceTexts = (values.pace as string[] | undefined) ?? [];
  const paceFrom = sources.pace === 'file' ? `${configFile} "pace"` : sources.pace === 'env' ? 'HOOKRELAY_PACE' : '--pace';
  if (!forwardToGiven && paceTexts.length > 0) problems.push(`${paceFrom} has no effect without --forward-to`);
  else if (values.forwardMode === 'sync' && paceTexts.length > 0) warnings.push(`${paceFrom} paces the async relay; with --forward-mode sync each delivery is handed on while the sender waits, unpaced`);
  // A --forward-to that did not parse is a problem already: only the routes are known then.
  const to = typeof values.forwardTo === 'string' && URL.canParse(values.forwardTo) ? new URL(values.forwardTo).href : null;
  const targets = to === null ? routes.flatMap((route) => route.urls) : relayTargetList({ to, routes });
  const pacing = resolvePacing(paceTexts, paceFrom, targets, problems, warnings);
  return { routes, trust, pacing };
}

/** Every route parsed (`also`: as --also routes); a bad one is a problem naming its place, a doubtful one a warning. */
export function parseRoutes(texts: readonly string[], where: string, problems: string[], warnings: string[], also = false): Route[] {
  const routes: Route[] = [];
  texts.forEach((text, i) => {
    const label = texts.length > 1 ? `${where} #${i + 1}` : where;
    const parsed = parseRoute(text, also);
    if (!parsed.ok) {
      problems.push(`${label}: ${parsed.message}`);
      return;
    }
    const { glob } = parsed.route;
    // Kept, with a warning: the service may add triggers this build does not know yet.
    if (!matchesCatalogue(glob)) warnings.push(`${label}: the glob ${JSON.stringify(glob)} matches no trigger of the catalogue (\`hookrelay triggers\` lists them); kept for triggers this build does not know`);
    // Only an earlier route with no filter takes every delivery its glob matches; --also routes all apply.
    const earlier = also ? undefined : routes.find((r) => r.where === undefined && (r.glob === glob || /^\*+$/.test(r.glob)));
    if (earlier) warnings.push(`${label}: ${JSON.stringify(glob)} never applies: the earlier route ${JSON.stringify(earlier.glob)} (with no filter) matches first (the first matching route wins)`);
    const never = parsed.route.where === undefined ? null : contradictionOf(parsed.route.where);
    if (never !== null) warnings.push(`${label}: its filter never matches: ${never}`);
    routes.push(parsed.route);
  });
  return routes;
}

/** The `--forward-header 'Name: value'` values as pairs; a bad one is a problem naming why. */
export function forwardHeadersOf(values: Record<string, unknown>, problems: string[]): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  for (const text of (values.forwardHeader as string[] | undefined) ?? []) {
    const parsed = parseForwardHeader(text);
    if (parsed.ok) headers.push(parsed.header);
    else problems.push(`--forward-header: ${parsed.message}`);
  }
  return headers;
}
