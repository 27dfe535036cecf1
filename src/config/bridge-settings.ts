/** `listen --bridge-port … --bridge-token NAME:TOKEN[:GLOB,GLOB]`: the public side of the bridge. */
import type { BridgeToken } from '../bridge/bridge-server.js';
import { isTriggerGlob } from '../core/routes.js';
import { parseRetainDuration } from '../store/retention.js';

export interface BridgeConfig {
  port: number;
  host: string;
  tokens: BridgeToken[];
  /** Unacknowledged deliveries are kept from retention until they are this old (ms). */
  retainMs: number;
}

/** A token must be hard to guess: `hookrelay bridge token` makes 32 random bytes (43 characters). */
export const MIN_TOKEN_LENGTH = 32;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,30}$/;
export const BRIDGE_TOKEN_NAME_RULE = 'letters, digits, dots, dashes or underscores, at most 31';

/** Whether `name` can name a bridge token (the NAME of NAME:TOKEN). */
export function isBridgeTokenName(name: string): boolean {
  return NAME.test(name) && name.length < MIN_TOKEN_LENGTH;
}

/** Why `token` cannot be a bridge token, or null; never repeats it. */
export function bridgeTokenProblem(token: string): string | null {
  if (token.includes(':')) return 'a token holds no colon: give only the TOKEN part of NAME:TOKEN';
  if (token.length < MIN_TOKEN_LENGTH) return `it is ${token.length} characters, and a bridge token has at least ${MIN_TOKEN_LENGTH} (the public side refuses shorter ones; make one with \`hookrelay bridge token\`)`;
  return null;
}

/** Parses one `NAME:TOKEN[:GLOB,GLOB]`. Messages never repeat the token. */
export function parseBridgeToken(text: string): { ok: true; token: BridgeToken } | { ok: false; message: string } {
  const [name = '', token = '', globs, ...extra] = text.split(':');
  // Never echo what was given: a token pasted without its NAME: would otherwise be printed as a name.
  if (extra.length > 0 || token === '') return { ok: false, message: 'expected NAME:TOKEN or NAME:TOKEN:GLOB,GLOB (e.g. laptop:<token>; a token holds no colon)' };
  if (!isBridgeTokenName(name)) return { ok: false, message: `the NAME before the first colon must be ${BRIDGE_TOKEN_NAME_RULE}` };
  if (token.length < MIN_TOKEN_LENGTH) return { ok: false, message: `the token of ${name} is ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} (make one with \`hookrelay bridge token\`)` };
  const triggers = globs === undefined ? [] : globs.split(',').map((g) => g.trim()).filter((g) => g.length > 0);
  const bad = triggers.find((g) => !isTriggerGlob(g));
  if (bad !== undefined) return { ok: false, message: `the trigger glob ${JSON.stringify(bad.slice(0, 64))} of ${name} is not a trigger name or glob` };
  return { ok: true, token: { name, token, triggers } };
}

export function resolveBridge(values: Record<string, unknown>, sources: Record<string, string>): { config: BridgeConfig | null; problems: string[] } {
  const problems: string[] = [];
  const texts = (values.bridgeToken as string[] | undefined) ?? [];
  const tokens: BridgeToken[] = [];
  for (const text of texts.flatMap((t) => t.split('\n')).map((t) => t.trim()).filter((t) => t.length > 0)) {
    const parsed = parseBridgeToken(text);
    if (parsed.ok) tokens.push(parsed.token);
    else problems.push(`--bridge-token: ${parsed.message}`);
  }
  const names = tokens.map((t) => t.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) problems.push(`--bridge-token: the name ${twice} is given twice`);
  const retain = parseRetainDuration(String(values.bridgeRetain ?? '7d'));
  if (!retain.ok) problems.push(`--bridge-retain: ${retain.message}`);
  if (values.bridgePort === undefined) {
    if (tokens.length > 0 && sources.bridgeToken !== 'default') problems.push('--bridge-token has no effect without --bridge-port');
    return { config: null, problems };
  }
  if (tokens.length === 0 && problems.length === 0) {
    problems.push('--bridge-port needs at least one --bridge-token NAME:TOKEN: make a token with `hookrelay bridge token`, then pass --bridge-token laptop:<token>');
  }
  return { config: { port: values.bridgePort as number, host: values.bridgeHost as string, tokens, retainMs: retain.ok && retain.ms !== null ? retain.ms : 7 * 86_400_000 }, problems };
}
