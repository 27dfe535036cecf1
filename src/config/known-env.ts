/**
 * Every HOOKRELAY_* variable some command reads, so a mistyped one is named at start instead of
 * being ignored in silence (a variable HOOKRELAY_SECRT once started listen on the development secret). A
 * test holds this list to the names the source reads.
 */
import { closestName } from '../core/closest-name.js';
import { printable } from '../reporter/printable.js';

export const KNOWN_ENV: readonly string[] = [
  'HOOKRELAY_ALSO', 'HOOKRELAY_API_KEY', 'HOOKRELAY_API_URL', 'HOOKRELAY_BODY_LIMIT', 'HOOKRELAY_BRIDGE_CA', 'HOOKRELAY_BRIDGE_HOST',
  'HOOKRELAY_BRIDGE_PORT', 'HOOKRELAY_BRIDGE_RETAIN', 'HOOKRELAY_BRIDGE_TOKEN', 'HOOKRELAY_CONNECT_NAME', 'HOOKRELAY_CONNECT_TOKEN',
  'HOOKRELAY_CONSOLE', 'HOOKRELAY_CONSOLE_ALLOWED_HOST', 'HOOKRELAY_CONSOLE_HOST', 'HOOKRELAY_CONSOLE_PORT', 'HOOKRELAY_CONSOLE_TOKEN',
  'HOOKRELAY_DB', 'HOOKRELAY_EMULATE_DB', 'HOOKRELAY_EMULATE_HOST', 'HOOKRELAY_EMULATE_KEY', 'HOOKRELAY_EMULATE_PLAN',
  'HOOKRELAY_EMULATE_PORT', 'HOOKRELAY_EMULATE_RATE_LIMIT', 'HOOKRELAY_EMULATE_SEED', 'HOOKRELAY_EMULATE_SSRF',
  'HOOKRELAY_EMULATE_TIME_SCALE', 'HOOKRELAY_EMULATE_WEBHOOK_CAP', 'HOOKRELAY_FAULT', 'HOOKRELAY_FAULT_FILE', 'HOOKRELAY_FORWARD_CA',
  'HOOKRELAY_FORWARD_HEADER', 'HOOKRELAY_FORWARD_INSECURE', 'HOOKRELAY_FORWARD_MAX_TRIES', 'HOOKRELAY_FORWARD_MODE', 'HOOKRELAY_FORWARD_PROXY',
  'HOOKRELAY_FORWARD_SECRET', 'HOOKRELAY_FORWARD_TIMEOUT', 'HOOKRELAY_FORWARD_TO', 'HOOKRELAY_HOST', 'HOOKRELAY_LOG_FORMAT',
  'HOOKRELAY_PACE', 'HOOKRELAY_PATH', 'HOOKRELAY_PORT', 'HOOKRELAY_PROXY', 'HOOKRELAY_RETAIN', 'HOOKRELAY_ROUTE', 'HOOKRELAY_SECRET', 'HOOKRELAY_SEED',
  'HOOKRELAY_SKIP_VERIFY', 'HOOKRELAY_STORE', 'HOOKRELAY_TLS_CERT', 'HOOKRELAY_TLS_KEY', 'HOOKRELAY_TOLERANCE',
];

/**
 * One warning for each HOOKRELAY_* variable that is not a setting but is a likely typo of one (at
 * most 2 edits away). Others (a test harness's own) are left alone: no known name to point to.
 */
export function mistypedEnvWarnings(env: NodeJS.ProcessEnv): string[] {
  const known = new Set(KNOWN_ENV);
  const warnings: string[] = [];
  for (const name of Object.keys(env)) {
    if (!name.startsWith('HOOKRELAY_') || known.has(name)) continue;
    const meant = closestName(name, KNOWN_ENV);
    if (meant !== null) warnings.push(`warning: the environment variable ${printable(name, 80)} is not a hookrelay setting and is ignored; did you mean ${meant}?`);
  }
  return warnings;
}
