/**
 * `prepare` (and `prepack`): builds (`npm run build`) unless the build is newer than every file it is made
 * from and was made with the lock and the packages installed now.
 *
 * Why: the first `npx hookrelay …` in a clone links the clone into npx's cache and runs `prepare`
 * again, right after `npm install` built it: ~10 s of silence before a new user's first command
 * answers (measured on a fresh clone: 9.6 s, then 1.0 s). A build older than any source, or a
 * missing one, is built as before.
 *
 * package-lock.json is judged by its content, not its time: `npm install` rewrites it (the same
 * bytes) before `prepare` runs, so by time every install looked stale and rebuilt (~20 s). The
 * build keeps the SHA-256 of the lock and of npm's record of what is installed, as they were when it
 * was made, in node_modules' cache (LOCK_STAMP), out of the package; `npm ci` starts node_modules
 * over, so a clean install still builds.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['src', 'web/src', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/bundle-cli.mjs'];
const OUTPUTS = ['dist/bin/cli.js', 'web/dist/index.html'];
const LOCK = join(ROOT, 'package-lock.json');
const INSTALLED = join(ROOT, 'node_modules', '.package-lock.json');
const LOCK_STAMP = join(ROOT, 'node_modules', '.cache', 'hookrelay', 'package-lock.sha256');

/** The lock and npm's record of what node_modules holds: the bundles are built from what is installed. */
function lockDigest() {
  const hash = createHash('sha256');
  for (const file of [LOCK, INSTALLED]) {
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update(`no ${file}`);
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

function stampedDigest() {
  try {
    return readFileSync(LOCK_STAMP, 'utf8').trim();
  } catch {
    return null;
  }
}

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
const lock = lockDigest();
if (oldestOutput() >= newestSource && stampedDigest() === lock) {
  process.stdout.write('hookrelay: the build is up to date\n');
} else {
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  process.exitCode = built.status ?? 1;
  if (built.status === 0) {
    mkdirSync(dirname(LOCK_STAMP), { recursive: true });
    writeFileSync(LOCK_STAMP, `${lock}\n`);
  }
}
