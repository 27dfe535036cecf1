/**
 * The secrets a `listen` given no `--secret` verifies and signs with, read from its data folder: the
 * kept secrets of `webhooks create --signing` (newest first), then the development secret. What
 * `listen` uses, so replays sign as its relay does and the MCP server knows what to hide and judge with.
 */
import { SecretSetError, secretsForListen } from '../service/secret-set.js';
import { readDevSecret } from './data-dir.js';

/** Throws the secret set's SecretSetError when its file is damaged: a clear problem, never a guess. */
export function folderSecrets(dataDir: string): string[] {
  const dev = readDevSecret(dataDir);
  return [...secretsForListen(dataDir), ...(dev !== undefined ? [dev] : [])];
}

/** folderSecrets, with a damaged secret set as a problem to report (its message names the file) instead of a throw. */
export function readFolderSecrets(dataDir: string): { ok: true; secrets: string[] } | { ok: false; problem: string } {
  try {
    return { ok: true, secrets: folderSecrets(dataDir) };
  } catch (err) {
    if (!(err instanceof SecretSetError)) throw err;
    return { ok: false, problem: err.message };
  }
}
