/**
 * `prepare` (and `prepack`): builds (`npm run build`) unless the build is newer than every file it is made from.
 *
 * Why: the first `npx hookrelay …` in a clone links the clone into npx's cache and runs `prepare`
 * again, right after `npm install` built it: ~10 s of silence before a new user's first command
 * answers (measured on a fresh clone: 9.6 s, then 1.0 s). A build older than any source, or a
 * missing one, is built as before.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['src', 'web/src', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/bundle-cli.mjs'];
const OUTPUTS = ['dist/bin/cli.js', 'web/dist/index.html'];

function newestMtime(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function oldestOutput() {
  let oldest = Infinity;
  for (const output of OUTPUTS) {
    const stat = statSync(join(ROOT, output), { throwIfNoEntry: false });
    if (!stat) return 0;
    oldest = Math.min(oldest, stat.mtimeMs);
  }
  return oldest;
}

const newestSource = Math.max(...SOURCES.map((s) => newestMtime(join(ROOT, s))));
if (oldestOutput() >= newestSource) {
  process.stdout.write('hookrelay: the build is up to date\n');
} else {
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exitCode = built.status ?? 1;
}
