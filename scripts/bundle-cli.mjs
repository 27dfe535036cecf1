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
 * better-sqlite3 (a native addon) and pg stay in node_modules, and so do fastify's schema compilers
 * (ajv, fast-json-stringify), which src/runtime/lazy-schema-compilers.ts loads from there on a
 * schema's first use, never at start: bundled, they were a third of what `listen` parses. The
 * OpenTelemetry SDK is bundled too, in chunks of its own that only a node whose OTEL_* variables ask
 * for traces loads (src/telemetry/start-tracing.ts): traces need no install, and cost no start. The
 * licences of the libraries the bundle holds go beside it, in THIRD-PARTY-NOTICES.md.
 */
import { build } from 'esbuild';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist', 'bin');
// Built beside it and swapped in whole, so a failed bundle leaves the last one working.
const NEXT = join(ROOT, 'dist', 'bin.next');

rmSync(NEXT, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: ROOT,
  entryPoints: ['dist/cli.js', 'dist/store/sqlite/writer-worker.js', 'dist/store/sqlite/checkpoint-worker.js'],
  entryNames: '[name]',
  outdir: NEXT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'pg', 'pg-native', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
  // Maps back to src/ (through tsc's maps) for `node --enable-source-maps`, without the sources' text.
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  // The CommonJS libraries bundled into ES modules still call require() and read __dirname. esbuild
  // does not parse a banner: a module of ours that declared a top-level `require`, `__filename` or
  // `__dirname` would fail to load ("already been declared"), in every test that starts the CLI.
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
writeFileSync(join(NEXT, 'THIRD-PARTY-NOTICES.md'), notices(Object.keys(metafile.inputs)));
rmSync(OUT, { recursive: true, force: true });
renameSync(NEXT, OUT);

/** Each bundled package's name, version, licence and licence text, in name order. */
function notices(inputs) {
  const roots = new Set();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    roots.add(input.slice(0, at) + 'node_modules/' + rest.slice(0, rest[0].startsWith('@') ? 2 : 1).join('/'));
  }
  const sections = [...roots].map((root) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, root, 'package.json'), 'utf8'));
    const file = readdirSync(join(ROOT, root)).find((name) => /^(licen[cs]e|copying)/i.test(name));
    const text = file ? readFileSync(join(ROOT, root, file), 'utf8').trim() : `(no licence file in the package; package.json says ${manifest.license ?? 'nothing'})`;
    return { name: manifest.name, body: `## ${manifest.name} ${manifest.version} (${manifest.license ?? 'no licence field'})\n\n${text}\n` };
  });
  sections.sort((a, b) => (a.name < b.name ? -1 : 1));
  const unique = sections.filter((s, i) => i === 0 || sections[i - 1].body !== s.body);
  return `# Third-party notices\n\nThe libraries bundled into hookrelay's CLI (dist/bin/), with their licences.\n\n${unique.map((s) => s.body).join('\n')}`;
}
