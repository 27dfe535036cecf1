/**
 * Bundles the compiled CLI (dist/cli.js, from tsc) and its worker threads into dist/bin/, which
 * bin/hookrelay.js runs. Part of `npm run build`.
 *
 * Why: Node 20's ESM loader resolves, reads and links each of the ~300 modules `listen` loads one by
 * one (its own, fastify's and their dependencies'), and it has no compile cache. One file per
 * command, with the chunks they share, starts `listen` ~25% sooner (bench/notes.md, session 16).
 * dist/ keeps tsc's module tree for the library's exports (hookrelay, hookrelay/express, …).
 *
 * The entries sit together in dist/bin/, two levels below the package as dist/<layer>/ modules do,
 * so each `new URL(…, import.meta.url)` in the source still finds what it names: the writer's and
 * checkpointer's worker files beside the chunk that spawns them, web/dist for the console.
 * better-sqlite3 (a native addon) and pg stay in node_modules.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = 'dist/bin';

rmSync(`${ROOT}/${OUT}`, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: ['dist/cli.js', 'dist/store/sqlite/writer-worker.js', 'dist/store/sqlite/checkpoint-worker.js'],
  entryNames: '[name]',
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'pg', 'pg-native'],
  sourcemap: 'linked',
  logLevel: 'warning',
  // The CommonJS dependencies bundled into ES modules still call require() and read __dirname.
  banner: {
    js: [
      "import { createRequire as __hookrelayRequire } from 'node:module';",
      "import { fileURLToPath as __hookrelayPath } from 'node:url';",
      "import { dirname as __hookrelayDirname } from 'node:path';",
      'const require = __hookrelayRequire(import.meta.url);',
      'const __filename = __hookrelayPath(import.meta.url);',
      'const __dirname = __hookrelayDirname(__filename);',
    ].join(' '),
  },
});
