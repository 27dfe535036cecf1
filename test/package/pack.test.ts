/**
 * What `npm pack` ships, and that a fresh project can install it: `npm pack` in a copy of the
 * sources builds the package (its prepack) and the tarball holds exactly dist/, bin/, web/dist, the
 * LICENSE and the documented files, with a package.json that names no script of the repository's
 * scripts/ as a lifecycle script and declares no dependency (postpack puts the copy's own back).
 *
 * One pack serves two projects, made while it packs. A fresh express 5 app installs the tarball:
 * npm adds that one package, none of the receiver's dependencies (better-sqlite3, fastify, pg, pino,
 * undici, ws, …), and there `hookrelay`, `hookrelay/express`, `hookrelay/fastify` and
 * `hookrelay/fetch` verify a signed delivery (the types of all but fastify's import no package), and
 * the `hookrelay` command names the `npm install` it needs instead of failing (all of which fails on
 * a package.json that keeps `dependencies`).
 * A project with what docs/library.md names for `hookrelay/testing` installs it without an engine
 * warning on this Node, type-checks an import of every subpath (Node's entry points, also without the
 * DOM library and with every .d.ts checked; and the portable ones as a bundler for Workers resolves
 * them), and runs them, and the installed `hookrelay` command (its bundle, dist/bin/). The working
 * tree's dist/ is untouched.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const CONSUMER = fileURLToPath(new URL('./consumer/', import.meta.url));

function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

interface Manifest {
  version: string;
  exports: Record<string, unknown>;
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  receiverDependencies?: Record<string, string>;
}
const manifest = () => JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;
/** The version the repository installed, so that --prefer-offline finds it in npm's cache. */
const installed = (name: string) => `${name}@${(JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version}`;
/** An install as a user runs one, from npm's cache when it can. */
const npmInstall = (cwd: string, args: string[]) => run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args], cwd);
/** `npm install` with a range from package.json, quoted as bin/hookrelay.js and docs/library.md write it. */
const spec = (name: string) => `'${name}@${manifest().dependencies![name]}'`;
/** What npm runs by itself in an installed or packed package: none may name scripts/, which is not shipped. */
const LIFECYCLE_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare', 'prepack', 'postpack'];
/**
 * What docs/library.md ("Installing") names for hookrelay/testing: what it loads beside the library,
 * and light-my-request at the repository's pin (fastify's newer ones pull cookie 2, which needs Node 22).
 */
const TESTING_NEEDS = ['better-sqlite3', 'fastify', 'light-my-request'];
/** What docs/library.md ("Installing") names for hookrelay/client: the HTTP client and the proxy agent it loads on its first call. */
const CLIENT_NEEDS = ['undici', 'https-proxy-agent'];
/** The receiver's heavy dependencies, which the library must not bring, directly or not (issue 36). */
const RECEIVER = ['better-sqlite3', 'fastify', 'pg', 'pino', 'undici', 'ws'];
/** The packages (not node:) that the .d.ts files of these subpaths import, at any depth, for Node. */
function typeImports(root: string, subpaths: string[]): string[] {
  const exports = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types?: string; node?: { types: string } }> }).exports;
  const queue = subpaths.map((subpath) => join(root, exports[subpath]!.node?.types ?? exports[subpath]!.types!));
  const seen = new Set<string>();
  const found = new Set<string>();
  for (let file = queue.pop(); file; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      if (specifier!.startsWith('.')) queue.push(join(dirname(file), specifier!.replace(/\.js$/, '.d.ts')));
      else if (!specifier!.startsWith('node:')) found.add(specifier!);
    }
  }
  return [...found];
}
const { dir, remove } = tempDir('hookrelay-pack-');

type Result = Awaited<ReturnType<typeof run>>;
/** A new project with these packages installed. */
async function newProject(path: string, packages: string[]): Promise<Result> {
  mkdirSync(path);
  writeFileSync(join(path, 'package.json'), JSON.stringify({ name: basename(path), private: true, type: 'module' }));
  return npmInstall(path, packages);
}

describe('the packed package', () => {
  let tarball = '';
  const app = join(dir, 'express-app');
  const consumer = join(dir, 'consumer');
  let appMade: Promise<Result> | undefined;
  let consumerMade: Promise<Result> | undefined;
  let full: Promise<Result> | undefined;
  // After the installs started here, even by a test that failed.
  afterAll(async () => {
    await Promise.all([appMade, consumerMade, full]);
    remove();
  });

  it('is built by npm pack and holds exactly dist/, bin/, web/dist and the documented files, with every entry point, its types and no repository script', async () => {
    // Made while the package is packed, then given the tarball: an express 5 app, and a project with what docs/library.md names for hookrelay/testing (--ignore-scripts: no
    // native build of better-sqlite3, which the in-memory test receiver never opens).
    appMade = newProject(app, [installed('express')]);
    consumerMade = newProject(consumer, ['--ignore-scripts', ...TESTING_NEEDS.map(installed), ...CLIENT_NEEDS.map(installed), installed('@types/node')]);
    const pkg = join(dir, 'pkg');
    mkdirSync(pkg);
    const builtPage = join(REPO, 'web', 'dist');
    for (const entry of ['package.json', 'LICENSE', 'bin', 'src', 'scripts', 'web', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'docs/library.md']) {
      cpSync(join(REPO, entry), join(pkg, entry), { recursive: true, filter: (source) => source !== builtPage });
    }
    symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
    const before = readdirSync(pkg);
    // With its scripts, as a maintainer packs or publishes (NODE_ENV is the test runner's, not theirs).
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], pkg, { NODE_ENV: undefined });
    expect(packed.code, packed.stdout + packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(dir, info!.filename);
    const paths = info!.files.map((f) => f.path);
    // web/dist is the console's page, served by `listen` from an installed package.
    const strays = paths.filter((p) => !/^(dist|bin|web\/dist)\//.test(p) && !['package.json', 'README.md', 'LICENSE', 'docs/library.md'].includes(p));
    expect(strays).toEqual([]);
    expect(paths).toContain('LICENSE');
    expect(paths).toContain('web/dist/index.html');
    // postpack put the copy's package.json back as it was, and left nothing behind; its old mtime
    // too, so the build pack made is not taken for stale.
    expect(readFileSync(join(pkg, 'package.json'), 'utf8')).toBe(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(readdirSync(pkg).sort()).toEqual([...before, 'dist'].sort());
    const stale = await run(process.execPath, ['scripts/build-if-stale.mjs'], pkg);
    expect(stale.stdout + stale.stderr).toBe('hookrelay: the build is up to date\n');

    const unpacked = join(dir, 'unpacked');
    mkdirSync(unpacked);
    const untar = await run('tar', ['-xzf', tarball, '-C', unpacked, 'package/package.json', 'package/LICENSE'], dir);
    expect(untar.code, untar.stderr).toBe(0);
    expect(readFileSync(join(unpacked, 'package', 'LICENSE'), 'utf8')).toMatch(/^MIT License\s+Copyright \(c\) \d{4} the hookrelay authors\s/);
    const shipped = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8')) as Manifest;
    for (const name of LIFECYCLE_SCRIPTS) expect(shipped.scripts?.[name] ?? '', name).not.toMatch(/scripts\//);
    expect(shipped.scripts).not.toHaveProperty('prepare');
    // The library installs alone: the repository's dependencies are kept for the `hookrelay`
    // command's message, in a field npm does not read; nothing else differs from its package.json.
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies', 'bundledDependencies']) expect(shipped, field).not.toHaveProperty(field);
    expect(shipped.receiverDependencies).toEqual(manifest().dependencies);
    const { dependencies, ...rest } = manifest();
    expect({ ...shipped, scripts: null, receiverDependencies: dependencies }).toEqual({ ...rest, scripts: null, receiverDependencies: dependencies });
    const targets = JSON.stringify(manifest().exports).match(/\.\/dist\/[^"]+/g)!;
    expect(targets.length).toBeGreaterThanOrEqual(14);
    for (const target of targets) expect(paths).toContain(target.slice(2));
    expect(paths).toContain('bin/hookrelay.js');
    expect(paths).toContain('dist/bin/cli.js');
    expect(paths).toContain('dist/bin/THIRD-PARTY-NOTICES.md');
    expect(paths.some((p) => p.startsWith('dist/') && p.includes('.test.'))).toBe(false);
  }, 180_000);

  it('installs alone into a fresh express 5 app, where hookrelay, /express, /fastify and /fetch verify a signed delivery', async () => {
    expect(tarball).not.toBe('');
    // The other project takes the tarball meanwhile.
    full = consumerMade!.then((made) => (made.code === 0 ? npmInstall(consumer, ['--ignore-scripts', tarball]) : made));
    const made = await appMade!;
    expect(made.code, made.stderr).toBe(0);
    const install = await npmInstall(app, [tarball]);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/EBADENGINE/);
    expect(install.stdout).toMatch(/^added 1 package in /m);
    cpSync(join(CONSUMER, 'light.mjs'), join(app, 'light.mjs'));
    const bin = join(app, 'node_modules', 'hookrelay', 'bin', 'hookrelay.js');
    const [ran, listen, postgres, schedule, testing] = await Promise.all([
      run(process.execPath, ['light.mjs'], app),
      run(process.execPath, [bin, 'listen'], app),
      run(process.execPath, [bin, 'events', 'list', '--store', 'postgres://hookrelay@127.0.0.1:1/hookrelay'], app),
      run(process.execPath, [bin, 'schedule'], app),
      run(process.execPath, ['--input-type=module', '-e', "import('hookrelay/testing').then(() => process.exit(0), (err) => { process.stdout.write(err.message); process.exit(7); })"], app),
    ]);
    // hookrelay brings no package; none of the receiver's dependencies is anywhere in the tree
    // (the app's lock lists every package installed, at every depth).
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: object }> };
    expect(lock.packages['node_modules/hookrelay']).toBeDefined();
    expect(lock.packages['node_modules/hookrelay']!.dependencies ?? {}).toEqual({});
    const everyName = new Set(Object.keys(lock.packages).map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)));
    expect(RECEIVER.filter((name) => everyName.has(name))).toEqual([]);
    for (const name of Object.keys(manifest().dependencies!)) {
      expect(everyName.has(name), name).toBe(false);
      expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);
    }

    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({
      hookrelay: { parsed: true, verified: true, refused: 'mismatch' },
      express: { status: 204, handled: 'light-1', refused: 400, code: 'SIGNATURE_MISMATCH' },
      fastify: { status: 200, delivered: 'light-1', refused: 400 },
      fetch: { id: 'light-1', refused: 400 },
    });
    // Their types name no package either (hookrelay/fastify's name fastify, which its users have).
    expect(typeImports(join(app, 'node_modules', 'hookrelay'), ['.', './express', './fetch'])).toEqual([]);

    // The command says what to install, where, and exits 3 (could not run): no loader error, no stack.
    expect(listen.code).toBe(3);
    expect(listen.stdout).toBe('');
    expect(listen.stderr).toContain('hookrelay: `hookrelay listen` needs better-sqlite3 (the SQLite store), which is not installed.');
    expect(listen.stderr).toContain(`Install it in ${realpathSync(app)}, then run the command again:\n  npm install ${spec('better-sqlite3')}\n`);
    expect(listen.stderr).not.toMatch(/Cannot find|ERR_MODULE_NOT_FOUND|\n\s+at /);
    expect(postgres.code).toBe(3);
    expect(postgres.stderr).toContain(`npm install ${spec('better-sqlite3')} ${spec('pg')}\n`);
    // hookrelay/testing names every package it needs and the one command, not the loader's first "Cannot find".
    expect(testing.code, testing.stderr).toBe(7);
    expect(testing.stdout).toBe(
      `hookrelay/testing needs better-sqlite3, fastify, light-my-request, which are not installed: installing hookrelay brings the library without the receiver's dependencies. ` +
        `Install them beside it: npm install --save-dev ${['better-sqlite3', 'fastify', 'light-my-request'].map(spec).join(' ')} (docs/library.md, "Installing")`,
    );
    // A command that opens no store runs without them.
    expect(schedule.code, schedule.stderr).toBe(0);
    expect(schedule.stdout).toMatch(/^Retry schedule \(spec 6\.4\)/);
  }, 180_000);

  it('with what docs/library.md names for hookrelay/testing and hookrelay/client installed, every subpath type-checks and runs, and so does the hookrelay command', async () => {
    expect(full).toBeDefined();
    const docs = readFileSync(join(REPO, 'docs', 'library.md'), 'utf8');
    expect(docs).toContain(`npm install --save-dev ${TESTING_NEEDS.map(spec).join(' ')}`);
    expect(docs).toContain(`npm install ${CLIENT_NEEDS.map(spec).join(' ')}`);
    expect(docs).toContain(`npm install ${spec('better-sqlite3')}\`, and \`${spec('pg')}\``);
    const made = await consumerMade!;
    const install = await full!;
    expect(install.code, install.stderr).toBe(0);
    // Every package they pull in runs on the Node hookrelay supports (engines.node >= 20.19: this one).
    expect(made.stderr + install.stderr).not.toMatch(/EBADENGINE/);
    // The .ts fixtures are kept as .fixture so the repository's own type check does not resolve them.
    cpSync(join(CONSUMER, 'node-entry.ts.fixture'), join(consumer, 'node-entry.ts'));
    cpSync(join(CONSUMER, 'web-entry.ts.fixture'), join(consumer, 'web-entry.ts'));
    cpSync(join(CONSUMER, 'run.mjs'), join(consumer, 'run.mjs'));
    const base = { target: 'ES2022', strict: true, noEmit: true, lib: ['ES2023', 'DOM'] };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...base, module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] }, files: ['node-entry.ts'] }));
    // A Node project without the DOM library that checks every .d.ts: the types name no DOM-only global.
    const nodeOnly = { ...base, lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], skipLibCheck: false };
    writeFileSync(join(consumer, 'tsconfig.node-only.json'), JSON.stringify({ compilerOptions: nodeOnly, files: ['node-entry.ts'] }));
    // As Wrangler or Vite resolve for Workers and browsers: no "node" condition, no Node types.
    // skipLibCheck: the envelope types share a .d.ts with Node-only helpers (src/core/envelope.ts).
    writeFileSync(join(consumer, 'tsconfig.web.json'), JSON.stringify({ compilerOptions: { ...base, module: 'ESNext', moduleResolution: 'bundler', types: [], skipLibCheck: true }, files: ['web-entry.ts'] }));
    const bin = join(consumer, 'node_modules', 'hookrelay', 'bin', 'hookrelay.js');
    const [nodeTypes, nodeOnlyTypes, webTypes, ran, version, unreachable] = await Promise.all([
      run(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer),
      run(process.execPath, [TSC, '-p', 'tsconfig.node-only.json'], consumer),
      run(process.execPath, [TSC, '-p', 'tsconfig.web.json'], consumer),
      run(process.execPath, ['run.mjs'], consumer),
      run(process.execPath, [bin, '--version'], consumer),
      // The installed command runs its bundle, undici loaded on use included (a client of an unreachable service).
      run(process.execPath, [bin, 'webhooks', 'list', '--api-url', 'http://127.0.0.1:1', '--api-key', 'hr_test_pack'], consumer),
    ]);
    expect(nodeTypes.stdout + nodeTypes.stderr).toBe('');
    expect(nodeOnlyTypes.stdout + nodeOnlyTypes.stderr).toBe('');
    expect(webTypes.stdout + webTypes.stderr).toBe('');
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({
      status: 200, waited: 'pack-1', sync: true, async: true, fetch: 'pack-1', express: 'function', fastify: 'function',
      // hookrelay/client against a stand-in service that answers a decided request's 409 and echoes the key.
      client: { pending: 'pending', error: 'ServiceError', status: 409, apiCode: 'ACCESS_REQUEST_ALREADY_DECIDED', requestId: 'req-pack', keyShown: false },
    });
    expect(version.stdout.trim()).toBe(manifest().version);
    expect(unreachable.stdout + unreachable.stderr).toMatch(/could not reach the service \(ECONNREFUSED/);
  }, 240_000);
});
