/**
 * The development secret made for this start, kept in its data folder before any part reads the
 * config (after the ports are known free, so a busy port still leaves nothing behind). If another
 * start kept one first (two nodes on one data folder starting together), that one is used: made
 * primary (listen's receiver secret), and the forward secret where the made one stood. The config
 * every part then reads is a new object, frozen: nothing changes it after the console, the relay and
 * the banner have read it.
 */
import { dataDirOf, readDevSecret, writeDevSecret } from '../config/data-dir.js';
import type { NodeConfig } from '../config/node-config.js';

export interface SettledConfig<C extends NodeConfig> {
  config: Readonly<C>;
  /** Said once the start is shown: the secret kept by another start is the one in use. */
  notice: string | null;
}

export function settleDevSecret<C extends NodeConfig>(config: C): SettledConfig<C> {
  // listen's development secret is its primary receiver secret; connect's (no receiver secret) signs its hand-offs.
  const made = config.secrets[0] ?? config.forward?.secret;
  if (!config.devSecret?.created || made === undefined) return { config: freeze(config), notice: null };
  const dataDir = dataDirOf(config.dbPath);
  if (writeDevSecret(dataDir, made)) return { config: freeze(config), notice: null };
  const kept = readDevSecret(dataDir);
  if (!kept || kept === made) return { config: freeze(config), notice: null };
  const forward = config.forward && config.forward.secret === made ? { ...config.forward, secret: kept } : config.forward;
  return {
    config: freeze({ ...config, secrets: config.secrets.length > 0 ? [kept, ...config.secrets] : [], devSecret: { ...config.devSecret, created: false }, ...(forward ? { forward } : {}) }),
    notice: `another start made the development secret in ${dataDir} first: that one is used`,
  };
}

function freeze<C extends NodeConfig>(config: C): Readonly<C> {
  Object.freeze(config.secrets);
  return Object.freeze(config);
}
