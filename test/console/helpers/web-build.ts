/**
 * The built console page for tests. web/dist is used when it is newer than every source file;
 * otherwise the page is built into a temporary folder named by a hash of the sources, so that
 * test files running in parallel never write the same folder (the rename is atomic).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const WEB = join(REPO, 'web');

/** Every source file of the page, sorted. */
export function webSources(): string[] {
  const files: string[] = [join(WEB, 'index.html'), join(WEB, 'vite.config.ts')];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(full);
    }
  };
  walk(join(WEB, 'src'));
  // Pure modules of src/ that the page bundles too.
  files.push(join(WEB, '..', 'src', 'core', 'shell-command.ts'));
  return files.sort();
}

export async function ensureWebBuild(): Promise<string> {
  const sources = webSources();
  const dist = join(WEB, 'dist');
  const built = join(dist, 'index.html');
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return dist;

  const hash = createHash('sha256');
  for (const file of sources) hash.update(file).update(readFileSync(file));
  const out = join(tmpdir(), `hookrelay-web-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(join(out, 'index.html'))) return out;
  const staging = `${out}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await promisify(execFile)(process.execPath, [join(REPO, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(WEB, 'vite.config.ts'), '--outDir', staging, '--emptyOutDir'], { cwd: REPO });
  try {
    renameSync(staging, out);
  } catch {
    // Another test file built the same sources first.
    rmSync(staging, { recursive: true, force: true });
  }
  return out;
}
