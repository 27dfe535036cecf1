/**
 * The development secret made for this start, kept in its data folder before any part reads the
 * config (after the ports are known free, so a busy port still leaves nothing behind). If another
 * start kept one first (two `listen`s on one data folder starting together), that one is used: made
 * primary, and the forward secret where the made one stood. The config every part then reads is a
 * new object, frozen: nothing changes it after the console, the relay and the banner have read it.
 */
import { dataDirOf, readDevSecret, writeDevSecret } from '../config/data-dir.js';
import type { ListenConfig } from '../config/listen-config.js';

export interface SettledConfig {
  config: Readonly<ListenConfig>;
  /** Said once the start is shown: the secret kept by another start is the one in use. */
  notice: string | null;
}

export function settleDevSecret(config: ListenConfig): SettledConfig {
  if (!config.devSecret?.created) return { config: freeze(config), notice: null };
  const made = config.secrets[0]!;
  const dataDir = dataDirOf(config.dbPath);
  if (writeDevSecret(dataDir, made)) return { config: freeze(config), notice: null };
  const kept = readDevSecret(dataDir);
  if (!kept || kept === made) return { config: freeze(config), notice: null };
  const forward = config.forward && config.forward.secret === made ? { ...config.forward, secret: kept } : config.forward;
  return {
    config: freeze({ ...config, secrets: [kept, ...config.secrets], devSecret: { ...config.devSecret, created: false }, ...(forward ? { forward } : {}) }),
    notice: `another start made the development secret in ${dataDir} first: that one is used`,
  };
}

function freeze(config: ListenConfig): Readonly<ListenConfig> {
  Object.freeze(config.secrets);
  return Object.freeze(config);
}
