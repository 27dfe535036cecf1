/**
 * The secrets a `listen` given no `--secret` verifies and signs with, read from its data folder: the
 * kept secrets of `webhooks create --signing` (newest first), then the development secret. What
 * `listen` uses, so replays sign as its relay does and the MCP server knows what to hide and judge with.
 */
import { secretsForListen } from '../service/secret-set.js';
import { readDevSecret } from './data-dir.js';

/** Throws the secret set's SecretSetError when its file is damaged: a clear problem, never a guess. */
export function folderSecrets(dataDir: string): string[] {
  const dev = readDevSecret(dataDir);
  return [...secretsForListen(dataDir), ...(dev !== undefined ? [dev] : [])];
}
