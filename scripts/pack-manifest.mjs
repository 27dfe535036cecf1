/**
 * `prepack` (`strip`) and `postpack` (`restore`): the package.json in the tarball has no `prepare`,
 * `prepack` or `postpack`. They run files of scripts/ (`prepare` builds a clone:
 * scripts/build-if-stale.mjs), and scripts/ is not in the tarball.
 *
 * Nor has it `dependencies`: they become `receiverDependencies`, which npm does not read, so
 * installing the package installs nothing else. The library (hookrelay, /express, /fastify, /fetch)
 * imports none of them; the `hookrelay` command's bundle holds all but better-sqlite3 and pg, and
 * bin/hookrelay.js names the `npm install` (with the range kept here) when a command needs one that
 * is missing. Why not optional peers or optional dependencies: docs/library.md, "Installing".
 *
 * npm tars package.json as it is on disk after prepack, so `strip` rewrites it for the pack and
 * keeps the file as written beside it; `restore` puts that back, byte for byte and with its own
 * mtime (scripts/build-if-stale.mjs would take a newer one for a change and build again).
 * npm also reads package.json again after prepack, so the stripped `prepare` does not build during
 * the pack: prepack runs scripts/build-if-stale.mjs itself, before `strip` (package.json).
 */
import { existsSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MANIFEST = join(ROOT, 'package.json');
const KEPT = join(ROOT, 'package.json.packing');
const REPOSITORY_ONLY = ['prepare', 'prepack', 'postpack'];

const mode = process.argv[2];
if (mode === 'strip') {
  if (existsSync(KEPT)) {
    // A pack that failed after prepack left package.json stripped; which file is right is the user's call.
    fail('package.json.packing is left over from a pack that did not finish: it is package.json as written. Move it back over package.json (or delete it if package.json was edited since), then pack again.');
  }
  const text = readFileSync(MANIFEST, 'utf8');
  const { atime, mtime } = statSync(MANIFEST);
  const manifest = JSON.parse(text);
  for (const name of REPOSITORY_ONLY) delete manifest.scripts?.[name];
  writeFileSync(KEPT, text);
  utimesSync(KEPT, atime, mtime);
  writeFileSync(MANIFEST, `${JSON.stringify(renameKey(manifest, 'dependencies', 'receiverDependencies'), null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
} else {
  fail('usage: node scripts/pack-manifest.mjs strip|restore');
}

/** The manifest with one key renamed in its place, so the packed file reads in the same order. */
function renameKey(object, from, to) {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key === from ? to : key, value]));
}

function fail(message) {
  process.stderr.write(`hookrelay: ${message}\n`);
  process.exit(1);
}
