/** Why a file named by the user could not be read, in words (the code alone, ENOENT or EISDIR, says little). */
export function unreadableBecause(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'not allowed to read it';
  if (e.code === 'EISDIR') return 'a folder, not a file';
  return e.code ?? e.message ?? String(err);
}
