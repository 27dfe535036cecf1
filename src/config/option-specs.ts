/**
 * The `listen` settings: one row each, naming its flag, its HOOKRELAY_* variable, its key in
 * hookrelay.config.json and its default. Resolution order: flag > env > file > default.
 */
import { MAX_BODY_LIMIT_BYTES } from '../core/limits.js';
import { DEFAULT_DB_PATH } from './data-dir.js';
import { PROCESS_LIST_NOTE } from './secret-flags.js';

export type OptionKind =
  | { type: 'port' }
  | { type: 'int'; min: number; max: number }
  | { type: 'string' }
  | { type: 'path' }
  | { type: 'url' }
  | { type: 'bool' }
  /** A list: repeated flags, an array in the file; in the environment comma-separated, or one item a line (`envLines`) where an item may hold a comma. */
  | { type: 'strings'; envLines?: true }
  | { type: 'enum'; values: readonly string[] };

export interface OptionSpec {
  /** Key in the resolved config and in hookrelay.config.json. */
  key: string;
  flag: string;
  env: string;
  kind: OptionKind;
  default?: unknown;
  description: string;
  /** The value is a secret: as a flag the process list shows it, so its help says so and its use warns (secret-flags.ts). */
  secret?: true;
}

export const LISTEN_OPTIONS: readonly OptionSpec[] = [
  { key: 'port', flag: '--port', env: 'HOOKRELAY_PORT', kind: { type: 'port' }, default: 4000, description: 'receiver port' },
  { key: 'host', flag: '--host', env: 'HOOKRELAY_HOST', kind: { type: 'string' }, default: '127.0.0.1', description: 'receiver address to bind' },
  { key: 'path', flag: '--path', env: 'HOOKRELAY_PATH', kind: { type: 'string' }, default: '/webhooks', description: 'path that accepts deliveries' },
  { key: 'tlsCert', flag: '--tls-cert', env: 'HOOKRELAY_TLS_CERT', kind: { type: 'path' }, description: 'serve the receiver (and the bridge listener) over HTTPS with this PEM certificate (chain); needs --tls-key; for setups without a TLS proxy (docs/deploy.md)' },
  { key: 'tlsKey', flag: '--tls-key', env: 'HOOKRELAY_TLS_KEY', kind: { type: 'path' }, description: 'the PEM private key of --tls-cert (unencrypted)' },
  { key: 'secret', flag: '--secret', env: 'HOOKRELAY_SECRET', kind: { type: 'strings' }, default: [], description: `signing secret; repeat for rotation (env: comma-separated); ${PROCESS_LIST_NOTE}`, secret: true },
  { key: 'tolerance', flag: '--tolerance', env: 'HOOKRELAY_TOLERANCE', kind: { type: 'int', min: 1, max: 86_400 }, default: 300, description: 'seconds a signature timestamp may be in the past or the future' },
  { key: 'db', flag: '--db', env: 'HOOKRELAY_DB', kind: { type: 'path' }, default: DEFAULT_DB_PATH, description: 'SQLite file; its folder is the data folder' },
  { key: 'store', flag: '--store', env: 'HOOKRELAY_STORE', kind: { type: 'string' }, description: 'a postgres:// URL: several instances share one PostgreSQL database (docs/deploy.md); default: the SQLite file of --db' },
  { key: 'skipVerify', flag: '--skip-verify', env: 'HOOKRELAY_SKIP_VERIFY', kind: { type: 'bool' }, default: false, description: 'accept unsigned or wrongly signed deliveries (UNSAFE: for local experiments only)' },
  { key: 'bodyLimit', flag: '--body-limit', env: 'HOOKRELAY_BODY_LIMIT', kind: { type: 'int', min: 1024, max: MAX_BODY_LIMIT_BYTES }, default: 1024 * 1024, description: 'largest accepted body in bytes (larger: 413)' },
  { key: 'fault', flag: '--fault', env: 'HOOKRELAY_FAULT', kind: { type: 'strings', envLines: true }, default: [], description: "fault rule, e.g. '503 retry-after=120 attempt=1' (docs/faults.md); repeatable, tried in order (env: one rule per line)" },
  { key: 'faultFile', flag: '--fault-file', env: 'HOOKRELAY_FAULT_FILE', kind: { type: 'path' }, description: 'file of fault rules: JSON {"rules": [...]} or one rule per line; its rules come after the --fault ones' },
  { key: 'seed', flag: '--seed', env: 'HOOKRELAY_SEED', kind: { type: 'int', min: 0, max: 4_294_967_295 }, description: 'seed of the fault rules\' probabilities (p=): the same seed repeats the same faults (default: random, printed)' },
  { key: 'forwardTo', flag: '--forward-to', env: 'HOOKRELAY_FORWARD_TO', kind: { type: 'url' }, description: 'hand every accepted delivery on to this URL (docs/relay.md)' },
  { key: 'route', flag: '--route', env: 'HOOKRELAY_ROUTE', kind: { type: 'strings', envLines: true }, default: [], description: "'GLOB=URL [URL …]' or 'GLOB where COND and COND = URL [URL …]': hand deliveries whose trigger matches GLOB (and whose body and headers meet the conditions, docs/relay.md \"Filters\") to these URLs instead; repeatable, the first matching route wins, --forward-to takes the rest (env: one per line)" },
  { key: 'also', flag: '--also', env: 'HOOKRELAY_ALSO', kind: { type: 'strings', envLines: true }, default: [], description: "written as --route: every --also that matches hands the delivery to its URLs too, besides the route or --forward-to that takes it (fan-out; each target its own job, retries and dead state); repeatable (env: one per line)" },
  { key: 'pace', flag: '--pace', env: 'HOOKRELAY_PACE', kind: { type: 'strings', envLines: true }, default: [], description: "'[URL] [concurrency=N] [rate=N/s|N/m] [burst=N] [paused] [order=trigger|/json/pointer] [on-dead=skip|block]': how fast the relay hands on to URL, or, with no URL, to every other target (default concurrency=16, no rate); order=: one delivery at a time per key, in acceptance order, and on-dead= what a key's dead head does to the rest (default skip); pause and resume from the console (docs/relay.md \"Pacing\", \"Order\"); repeatable (env: one per line)" },
  { key: 'forwardSecret', flag: '--forward-secret', env: 'HOOKRELAY_FORWARD_SECRET', kind: { type: 'string' }, description: `secret that signs relayed and replayed deliveries (default: the primary --secret); ${PROCESS_LIST_NOTE}`, secret: true },
  { key: 'forwardTimeout', flag: '--forward-timeout', env: 'HOOKRELAY_FORWARD_TIMEOUT', kind: { type: 'int', min: 100, max: 600_000 }, default: 30_000, description: 'milliseconds to wait for the target' },
  { key: 'forwardHeader', flag: '--forward-header', env: 'HOOKRELAY_FORWARD_HEADER', kind: { type: 'strings', envLines: true }, default: [], description: "extra header on every hand-off, 'Name: value'; repeatable (env: one per line)" },
  { key: 'forwardMode', flag: '--forward-mode', env: 'HOOKRELAY_FORWARD_MODE', kind: { type: 'enum', values: ['async', 'sync'] }, default: 'async', description: 'async: durable outbox with retries; sync: the sender gets the target\'s answer' },
  { key: 'forwardMaxTries', flag: '--forward-max-tries', env: 'HOOKRELAY_FORWARD_MAX_TRIES', kind: { type: 'int', min: 1, max: 100 }, default: 15, description: 'hand-off tries before a job is dead (backoff doubles from 1 s up to 5 min)' },
  { key: 'forwardInsecure', flag: '--forward-insecure', env: 'HOOKRELAY_FORWARD_INSECURE', kind: { type: 'bool' }, default: false, description: 'accept any certificate from https forward and route targets (a local app with a self-signed one); nothing else' },
  { key: 'forwardCa', flag: '--forward-ca', env: 'HOOKRELAY_FORWARD_CA', kind: { type: 'path' }, description: 'PEM certificate(s) trusted for https forward and route targets, besides the usual roots' },
  { key: 'forwardProxy', flag: '--forward-proxy', env: 'HOOKRELAY_FORWARD_PROXY', kind: { type: 'string' }, description: 'HTTP proxy (http://[user:password@]host:port) the hand-offs to forward and route targets and replays go through; default none: the app is local, so HTTPS_PROXY and HTTP_PROXY never apply to it' },
  { key: 'console', flag: '--no-console', env: 'HOOKRELAY_CONSOLE', kind: { type: 'bool' }, default: true, description: 'do not start the browser console' },
  { key: 'consolePort', flag: '--console-port', env: 'HOOKRELAY_CONSOLE_PORT', kind: { type: 'port' }, default: 4001, description: 'console listener port' },
  { key: 'consoleHost', flag: '--console-host', env: 'HOOKRELAY_CONSOLE_HOST', kind: { type: 'string' }, default: '127.0.0.1', description: 'console address to bind; anything but loopback requires a token' },
  { key: 'consoleAllowedHost', flag: '--console-allowed-host', env: 'HOOKRELAY_CONSOLE_ALLOWED_HOST', kind: { type: 'strings' }, default: [], description: 'extra Host name the console answers to (name or name:port); repeatable' },
  { key: 'consoleToken', flag: '--console-token', env: 'HOOKRELAY_CONSOLE_TOKEN', kind: { type: 'string' }, description: `token the console requires (default: none on loopback, generated and printed otherwise); ${PROCESS_LIST_NOTE}`, secret: true },
  { key: 'retain', flag: '--retain', env: 'HOOKRELAY_RETAIN', kind: { type: 'string' }, default: '30d', description: 'prune deliveries last seen longer ago than this (30d, 72h, …; 0 or off: keep all), at start and hourly; never one whose relay is pending' },
  { key: 'bridgePort', flag: '--bridge-port', env: 'HOOKRELAY_BRIDGE_PORT', kind: { type: 'port' }, description: 'open the bridge listener on this port: laptops subscribe with `hookrelay connect` (docs/bridge.md); off by default' },
  { key: 'bridgeHost', flag: '--bridge-host', env: 'HOOKRELAY_BRIDGE_HOST', kind: { type: 'string' }, default: '127.0.0.1', description: 'bridge address to bind (a TLS proxy sits in front)' },
  { key: 'bridgeToken', flag: '--bridge-token', env: 'HOOKRELAY_BRIDGE_TOKEN', kind: { type: 'strings', envLines: true }, default: [], description: `who may subscribe: 'NAME:TOKEN' or 'NAME:TOKEN:GLOB,GLOB' (only those triggers); repeatable (env: one per line); make a token with \`hookrelay bridge token\`; ${PROCESS_LIST_NOTE}`, secret: true },
  { key: 'bridgeRetain', flag: '--bridge-retain', env: 'HOOKRELAY_BRIDGE_RETAIN', kind: { type: 'string' }, default: '7d', description: 'retention never prunes what a known subscriber has not acknowledged, until it is older than this' },
  { key: 'logFormat', flag: '--log-format', env: 'HOOKRELAY_LOG_FORMAT', kind: { type: 'enum', values: ['pretty', 'json', 'silent'] }, default: 'pretty', description: 'terminal output: pretty lines, JSON lines, or nothing' },
];

/**
 * `--proxy URL`: the HTTP proxy of the commands that reach out (docs/operate.md, Proxies). `connect`
 * reads it as a row (flag > HOOKRELAY_PROXY > "proxy" in hookrelay.config.json); the service commands,
 * `send` and `emulate`, which have no config file, by its flag and variable. Not a `listen` setting:
 * listen only receives, and its relay to the local app is never proxied.
 */
export const PROXY_OPTION: OptionSpec = {
  key: 'proxy',
  flag: '--proxy',
  env: 'HOOKRELAY_PROXY',
  kind: { type: 'string' },
  description: 'HTTP proxy (http://[user:password@]host:port) for every connection this command makes, loopback included; without it HTTPS_PROXY or HTTP_PROXY apply, never to loopback; NO_PROXY is honoured; docs/operate.md',
};

/**
 * Every key a hookrelay.config.json may hold: one file serves every command, so each command's
 * resolver accepts the keys of the others (listen's, and connect's own `bridgeCa` and `proxy`)
 * without reading them, and refuses only a key no command knows.
 */
export const CONFIG_FILE_KEYS: readonly string[] = [...LISTEN_OPTIONS.map((s) => s.key), 'bridgeCa', 'proxy'];
