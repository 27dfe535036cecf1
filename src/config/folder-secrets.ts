/**
 * The secrets a `listen` given no `--secret` verifies and signs with, read from its data folder: the
 * kept secrets of `webhooks create --signing` (newest first), then the development secret. What
 * `listen` uses, so replays sign as its relay does and the MCP server knows what to hide and judge with.
 */
import { SecretSetError, secretsForListen } from '../service/secret-set.js';
import { unreadableBecause } from '../core/file-errors.js';
import { devSecretPath, readDevSecret } from './data-dir.js';

/** The folder's two sources, the development secret read first. */
function sources(dataDir: string): { dev: string | undefined; kept: string[] } {
  const dev = readDevSecret(dataDir);
  return { dev, kept: secretsForListen(dataDir) };
}

const inOrder = ({ dev, kept }: { dev: string | undefined; kept: string[] }): string[] => [...kept, ...(dev !== undefined ? [dev] : [])];

/** Throws the secret set's SecretSetError when its file is damaged: a clear problem, never a guess. */
export function folderSecrets(dataDir: string): string[] {
  return inOrder(sources(dataDir));
}

/**
 * folderSecrets (and whether its first is the development secret, for saying what signs), with a damaged secret set, or a development secret file that cannot be read (another
 * user's, a folder), as a problem to report naming the file, instead of a throw.
 */
export function readFolderSecrets(dataDir: string): { ok: true; secrets: string[]; firstIsDevSecret: boolean } | { ok: false; problem: string } {
  try {
    const found = sources(dataDir);
    return { ok: true, secrets: inOrder(found), firstIsDevSecret: found.kept.length === 0 && found.dev !== undefined };
  } catch (err) {
    if (err instanceof SecretSetError) return { ok: false, problem: err.message };
    if (typeof (err as NodeJS.ErrnoException).code !== 'string') throw err;
    return { ok: false, problem: `cannot read the development secret ${devSecretPath(dataDir)}: ${unreadableBecause(err)}` };
  }
}
