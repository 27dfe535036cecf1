/**
 * What every tool of `hookrelay mcp` works on: the one store it was started for (opened read-only,
 * or to write with --allow-write), the settings it reads as `listen` reads them, and the one redactor
 * every answer passes through.
 */
import { dataDirOf, readDevSecret } from '../config/data-dir.js';
import { folderSecrets } from '../config/folder-secrets.js';
import { resolveStoreLocation, type StoreFlags } from '../config/db-path.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from '../config/option-specs.js';
import { outputRedactor } from '../config/output-redactor.js';
import { resolveOptions } from '../config/resolve-config.js';
import { parseRoute } from '../core/routes.js';
import { parseBridgeToken } from '../config/bridge-settings.js';
import { describeStoreLocation, NoStoreError, openExistingStore, openStoreReader, type StoreLocation, type StoreReader } from '../store/open-store.js';
import type { DeliveryStore } from '../store/store.js';
import type { Redact } from './answer.js';

export interface McpContext {
  /** The store; a DeliveryStore when started with --allow-write. */
  store: StoreReader;
  writable: DeliveryStore | null;
  location: StoreLocation;
  /** The store for messages: a path made absolute, a URL without its password. */
  storeName: string;
  /** The SQLite path (its folder is the data folder, where the development secret lives). */
  dbPath: string;
  configFile: string | undefined;
  env: NodeJS.ProcessEnv;
  now: () => number;
  redact: Redact;
}

export type McpFlags = StoreFlags & { allowWrite?: boolean };

/** Why the server cannot start: `usage` (a bad flag, no store there) or `couldNotRun` (a store that cannot be read). */
export class StartFailure extends Error {
  constructor(readonly kind: 'usage' | 'couldNotRun', message: string) {
    super(message);
  }
}

/** Opens the store the flags name (flag > HOOKRELAY_* > config file > default, as `events` does). Throws StartFailure. */
export async function openMcpContext(flags: McpFlags, env: NodeJS.ProcessEnv = process.env): Promise<McpContext> {
  const where = resolveStoreLocation(flags, env);
  if (!where.ok) throw new StartFailure('usage', where.problems.join('\n'));
  const redact = settingsRedactor(where.location, where.dbPath, flags.config, env);
  let store: StoreReader;
  let writable: DeliveryStore | null = null;
  try {
    if (flags.allowWrite) store = writable = await openExistingStore(where.location);
    else store = await openStoreReader(where.location);
  } catch (err) {
    // No store at the path given (its message names the path): usage. One there that cannot be read: could not run.
    if (err instanceof NoStoreError) throw new StartFailure('usage', redact(err.message));
    throw new StartFailure('couldNotRun', redact(`cannot open the store ${describeStoreLocation(where.location)}: ${(err as Error).message}`));
  }
  return { store, writable, location: where.location, storeName: describeStoreLocation(where.location), dbPath: where.dbPath, configFile: flags.config, env, now: Date.now, redact };
}

/** Settings whose values are URLs that may carry credentials. */
const URL_KEYS = new Set(['forwardTo', 'forwardProxy', 'store']);
/** Settings written as routes (`GLOB[ where …]=URL [URL …]`): their URLs may carry credentials too. */
const ROUTE_KEYS = new Set(['route', 'also']);

/**
 * The redactor of every answer: every secret the settings hold (those `listen` marks secret: signing
 * secrets, the forward secret, the console and bridge tokens), the development secret, the service's
 * API key, and the credentials of the store's and the relay's URLs.
 */
function settingsRedactor(location: StoreLocation, dbPath: string, configFile: string | undefined, env: NodeJS.ProcessEnv): Redact {
  // A setting that does not resolve is left out: the tools that need it say so when called.
  const { values } = resolveOptions(LISTEN_OPTIONS, { flags: {}, env, configFile, configFileRequired: false }, CONFIG_FILE_KEYS);
  const secrets: string[] = [];
  const urls: string[] = [];
  for (const spec of LISTEN_OPTIONS) {
    const value = values[spec.key];
    const texts = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    if (spec.secret) secrets.push(...texts);
    // A bridge token is written NAME:TOKEN[:GLOBS]: the token alone is what a text would hold.
    if (spec.key === 'bridgeToken') {
      for (const text of texts) {
        const parsed = parseBridgeToken(text);
        if (parsed.ok) secrets.push(parsed.token.token);
      }
    }
    if (URL_KEYS.has(spec.key)) urls.push(...texts);
    // A filtered route's conditions may hold "=" too: its URLs (every target of a fan-out) are what the route parser finds.
    if (ROUTE_KEYS.has(spec.key)) {
      for (const text of texts) {
        const parsed = parseRoute(text);
        if (parsed.ok) urls.push(...parsed.route.urls);
      }
    }
  }
  try {
    secrets.push(...folderSecrets(dataDirOf(dbPath)));
  } catch {
    // A damaged secret set: the development secret still hides.
    const dev = readDevSecret(dataDirOf(dbPath));
    if (dev) secrets.push(dev);
  }
  if (env.HOOKRELAY_API_KEY) secrets.push(env.HOOKRELAY_API_KEY);
  if (location.kind === 'postgres') urls.push(location.url);
  // A --db or HOOKRELAY_DB that holds a URL read as a file path (postgresql+x://…): its password is still hidden.
  urls.push(dbPath);
  return outputRedactor(secrets, null, urls);
}
