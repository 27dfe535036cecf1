#!/usr/bin/env node
// Runs the bundled CLI (built by `npm install` through the `prepare` script: scripts/bundle-cli.mjs).
//
// The bundle holds its libraries but two, which stay in node_modules: better-sqlite3 (a native addon,
// the SQLite store) and pg (the PostgreSQL store of `--store postgres://…`). The published package
// installs neither, so that the library installs light (docs/library.md, "Installing"). When a command
// needs one that cannot be found, this says which `npm install` brings it, and where, and exits 3
// (could not run), instead of the loader's error from inside the bundle.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/bin/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(compiled))) {
  process.stderr.write('hookrelay: the build (dist/bin/cli.js) is missing. Run `npm install` (or `npm run build`) in the hookrelay folder first.\n');
  process.exit(1);
}

/**
 * The commands that open no store. Every other command, and `--help`, `--version` or none (they load
 * every command), loads better-sqlite3 when it starts or when it opens the store.
 */
const STORELESS = new Set(['verify', 'send', 'schedule', 'triggers', 'webhooks', 'secrets', 'bridge']);
const POSTGRES_URL = /^postgres(ql)?:\/\//i;

const args = process.argv.slice(2);
const needed = STORELESS.has(args[0]) ? [] : ['better-sqlite3', ...(postgresStore() ? ['pg'] : [])];
const find = createRequire(compiled);
const missing = needed.filter((name) => {
  try {
    find.resolve(name);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  process.stderr.write(missingMessage(missing));
  process.exit(3);
}
await import(compiled.href);

/** `--store postgres://…` as a flag, in HOOKRELAY_STORE or in the config file: the order the CLI reads them in. */
function postgresStore() {
  const flag = valueOf('--store');
  if (flag !== undefined) return POSTGRES_URL.test(flag);
  if (process.env.HOOKRELAY_STORE) return POSTGRES_URL.test(process.env.HOOKRELAY_STORE);
  try {
    const store = JSON.parse(readFileSync(valueOf('--config') ?? 'hookrelay.config.json', 'utf8')).store;
    return typeof store === 'string' && POSTGRES_URL.test(store);
  } catch {
    return false; // no file, or one the CLI will report on
  }
}

function valueOf(flag) {
  let value;
  args.forEach((arg, i) => {
    if (arg === flag) value = args[i + 1];
    else if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
  });
  return value;
}

function missingMessage(names) {
  const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const what = names.map((name) => `${name} (${name === 'pg' ? 'the PostgreSQL store' : 'the SQLite store'})`).join(' and ');
  const command = args[0] && !args[0].startsWith('-') ? `\`hookrelay ${args[0]}\`` : 'the hookrelay command';
  const head = `hookrelay: ${command} needs ${what}, which ${names.length > 1 ? 'are' : 'is'} not installed.`;
  // A clone lists them as its dependencies: `npm install` there did not run, or did not finish.
  if (names.every((name) => manifest.dependencies?.[name])) return `${head}\nRun \`npm install\` in ${root} first.\n`;
  // The published package keeps the ranges it was built with (scripts/pack-manifest.mjs).
  const specs = names.map((name) => quote(manifest.receiverDependencies?.[name] ? `${name}@${manifest.receiverDependencies[name]}` : name));
  const them = names.length > 1 ? 'them' : 'it';
  const why = 'Installing hookrelay brings the library (hookrelay, hookrelay/express, /fastify, /fetch) without the receiver\'s dependencies.';
  if (root.includes(`${sep}_npx${sep}`)) {
    const run = ['npx', '--package', `${manifest.name}@${manifest.version}`, ...specs.flatMap((spec) => ['--package', spec]), 'hookrelay', ...args.map(quote)].join(' ');
    return `${head} ${why}\nRun the command with ${them}:\n  ${run}\n`;
  }
  const at = root.indexOf(`${sep}node_modules${sep}`);
  const project = at > 0 ? root.slice(0, at) : root;
  // A folder holding node_modules but no package.json is npm's global prefix (…/lib, or %APPDATA%\npm).
  if (at > 0 && !existsSync(join(project, 'package.json'))) {
    return `${head} ${why}\nInstall ${them} globally too, then run the command again:\n  npm install --global ${specs.join(' ')}\n`;
  }
  return `${head} ${why}\nInstall ${them} in ${project}, then run the command again:\n  npm install ${specs.join(' ')}\n`;
}

function quote(arg) {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}
