/**
 * What `npm pack` ships, and that a fresh project can install it: `npm pack` in a copy of the
 * sources builds the package (its prepack) and the tarball holds exactly dist/, bin/, web/dist, the
 * LICENSE and the documented files, with a package.json that names no script of the repository's
 * scripts/ as a lifecycle script (postpack puts the copy's own back). A new project installs it
 * without an engine warning on this Node, type-checks an import of every subpath (Node's entry
 * points, also without the DOM library and with every .d.ts checked; and the portable ones as a
 * bundler for Workers resolves them), and runs them, and the installed `hookrelay` command (its
 * bundle, dist/bin/). The working tree's dist/ is untouched.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
}
const manifest = () => JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;
/** What npm runs by itself in an installed or packed package: none may name scripts/, which is not shipped. */
const LIFECYCLE_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare', 'prepack', 'postpack'];
const { dir, remove } = tempDir('hookrelay-pack-');
afterAll(remove);

describe('the packed package', () => {
  let tarball = '';

  it('is built by npm pack and holds exactly dist/, bin/, web/dist and the documented files, with every entry point, its types and no repository script', async () => {
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
    // Nothing else differs from the repository's package.json.
    expect({ ...shipped, scripts: null }).toEqual({ ...manifest(), scripts: null });
    const targets = JSON.stringify(manifest().exports).match(/\.\/dist\/[^"]+/g)!;
    expect(targets.length).toBeGreaterThanOrEqual(14);
    for (const target of targets) expect(paths).toContain(target.slice(2));
    expect(paths).toContain('bin/hookrelay.js');
    expect(paths).toContain('dist/bin/cli.js');
    expect(paths).toContain('dist/bin/THIRD-PARTY-NOTICES.md');
    expect(paths.some((p) => p.startsWith('dist/') && p.includes('.test.'))).toBe(false);
  }, 180_000);

  it('installs into a fresh project, whose imports of every subpath type-check and run', async () => {
    expect(tarball).not.toBe('');
    const consumer = join(dir, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const typesNode = (JSON.parse(readFileSync(join(REPO, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }).version;
    // --ignore-scripts: no native build of better-sqlite3, which no subpath loads until a SQLite store opens.
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball, `@types/node@${typesNode}`], consumer);
    expect(install.code, install.stderr).toBe(0);
    // Every package the tarball pulls in runs on the Node it supports (engines.node >= 20.19: this one).
    expect(install.stderr).not.toMatch(/EBADENGINE/);
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
    const nodeTypes = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer);
    expect(nodeTypes.stdout + nodeTypes.stderr).toBe('');
    const nodeOnlyTypes = await run(process.execPath, [TSC, '-p', 'tsconfig.node-only.json'], consumer);
    expect(nodeOnlyTypes.stdout + nodeOnlyTypes.stderr).toBe('');
    const webTypes = await run(process.execPath, [TSC, '-p', 'tsconfig.web.json'], consumer);
    expect(webTypes.stdout + webTypes.stderr).toBe('');
    const ran = await run(process.execPath, ['run.mjs'], consumer);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ status: 200, waited: 'pack-1', sync: true, async: true, fetch: 'pack-1', express: 'function', fastify: 'function' });
    // The installed command runs its bundle, undici loaded on use included (a client of an unreachable service).
    const bin = join(consumer, 'node_modules', 'hookrelay', 'bin', 'hookrelay.js');
    const version = await run(process.execPath, [bin, '--version'], consumer);
    expect(version.stdout.trim()).toBe(manifest().version);
    const unreachable = await run(process.execPath, [bin, 'webhooks', 'list', '--api-url', 'http://127.0.0.1:1', '--api-key', 'hr_test_pack'], consumer);
    expect(unreachable.stdout + unreachable.stderr).toMatch(/could not reach the service \(ECONNREFUSED/);
  }, 240_000);
});
