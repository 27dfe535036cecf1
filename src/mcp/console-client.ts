/**
 * The running `listen`'s console, as the fault tools reach it: fault rules live in that process and
 * change through its control API (src/console/api-faults.ts), not through the store. Found where
 * `listen` reads its console settings (`consoleHost`, `consolePort`, `consoleToken`: flag > HOOKRELAY_* >
 * config file > default), or at a URL the caller gives; on this machine only.
 */
import { request } from 'undici';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from '../config/option-specs.js';
import { resolveOptions } from '../config/resolve-config.js';
import { displayUrl } from '../core/url-secrets.js';
import { isLoopbackHost } from '../runtime/hosts.js';
import { ToolFailure } from './answer.js';
import type { McpContext } from './context.js';

const CONSOLE_KEYS = ['console', 'consolePort', 'consoleHost', 'consoleToken'];
/** The most of a console answer read: its fault rule lists are small (at most MAX_RULES rules). */
const MAX_ANSWER_BYTES = 1024 * 1024;
const TIMEOUT_MS = 10_000;

export interface ConsoleTarget {
  base: URL;
  token: string | null;
}

/** Where the console is: `given` (a URL on this machine), else the console settings `listen` reads. */
export function consoleTarget(ctx: McpContext, given: string | undefined): ConsoleTarget {
  const settings = resolveOptions(LISTEN_OPTIONS.filter((s) => CONSOLE_KEYS.includes(s.key)), { flags: {}, env: ctx.env, configFile: ctx.configFile, configFileRequired: ctx.configFile !== undefined }, CONFIG_FILE_KEYS);
  if (settings.problems.length > 0) throw new ToolFailure(`the console settings cannot be read: ${settings.problems.join('; ')}`);
  const token = (settings.values.consoleToken as string | undefined) ?? null;
  if (given !== undefined) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new ToolFailure(`console: not a URL: ${JSON.stringify(displayUrl(given).slice(0, 200))}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolFailure('console: must be an http or https URL');
    if (!isLoopbackHost(url.hostname)) throw new ToolFailure(`console: ${url.host} is not on this machine; the fault tools reach only a console on loopback`);
    return { base: new URL(url.origin), token };
  }
  if (settings.values.console === false) throw new ToolFailure('the console is off in the settings (HOOKRELAY_CONSOLE=false or "console": false), and fault rules change only through it: pass console, the URL of a running listen\'s console');
  const host = settings.values.consoleHost as string;
  // A console bound to every address answers on loopback too.
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  if (!isLoopbackHost(reachable)) throw new ToolFailure(`the console's host in the settings, ${host}, is not loopback: pass console, its URL on this machine`);
  return { base: new URL(`http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${settings.values.consolePort as number}`), token };
}

/** One call of the control API: its `data`, or a ToolFailure with the console's own code and message. */
export async function callConsole(target: ConsoleTarget, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (target.token !== null) headers['x-hookrelay-token'] = target.token;
  const where = displayUrl(target.base.origin);
  let statusCode: number;
  let text: string;
  try {
    const answer = await request(new URL(path, target.base), { method, headers, body: body === undefined ? undefined : JSON.stringify(body), headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    statusCode = answer.statusCode;
    // Counted as it streams: an answer past the bound is dropped there, never held whole.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES) {
        answer.body.destroy();
        throw new ToolFailure(`the console at ${where} answered more than ${MAX_ANSWER_BYTES} bytes, more than a console sends`);
      }
      chunks.push(chunk as Buffer);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof ToolFailure) throw err;
    throw new ToolFailure(`no console answers at ${where} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): fault rules live in a running \`hookrelay listen\` and change through its console; start it, or pass console, the URL its banner printed`);
  }
  const parsed = envelopeOf(text);
  if (parsed === null) throw new ToolFailure(`${where} answered ${statusCode} without the console's envelope: is it a hookrelay console?`);
  if (!parsed.success) throw new ToolFailure(`the console refused (${statusCode} ${String(parsed.code)}): ${String(parsed.error)}`);
  return parsed.data;
}

/** The control API's envelope (spec 2.1 and 7): `{success, data}` or `{success: false, error, code}`; null for anything else. */
function envelopeOf(text: string): { success: boolean; data?: unknown; error?: unknown; code?: unknown } | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === 'object' && typeof (value as { success?: unknown }).success === 'boolean') return value as { success: boolean };
  } catch {
    // Not JSON: not the control API.
  }
  return null;
}
