/**
 * What `npm pack` ships, and that a fresh project can install it: the tarball holds exactly
 * dist/, bin/ and the documented files; a new project installs it, type-checks an import of every
 * subpath (Node's entry points, and the portable ones as a bundler for Workers resolves them), and
 * runs them, and the installed `hookrelay` command (its bundle, dist/bin/). The package is built in a copy of the sources, so the working tree's dist/ is untouched.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const CONSUMER = fileURLToPath(new URL('./consumer/', import.meta.url));

function run(command: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const manifest = () => JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string; exports: Record<string, unknown> };
const { dir, remove } = tempDir('hookrelay-pack-');
afterAll(remove);

describe('the packed package', () => {
  let tarball = '';

  it('holds exactly dist/, bin/ and the documented files, with every entry point and its types', async () => {
    const pkg = join(dir, 'pkg');
    mkdirSync(pkg);
    for (const entry of ['package.json', 'bin', 'src', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'docs/library.md']) {
      cpSync(join(REPO, entry), join(pkg, entry), { recursive: true });
    }
    symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
    const build = await run(process.execPath, [TSC, '-p', 'tsconfig.build.json'], pkg);
    expect(build.stdout + build.stderr).toBe('');
    const bundled = await run(process.execPath, ['scripts/bundle-cli.mjs'], pkg);
    expect(bundled.code, bundled.stdout + bundled.stderr).toBe(0);
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], pkg);
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(dir, info!.filename);
    const paths = info!.files.map((f) => f.path);
    // web/dist is the console's page, served by `listen` from an installed package.
    const strays = paths.filter((p) => !/^(dist|bin|web\/dist)\//.test(p) && !['package.json', 'README.md', 'docs/library.md'].includes(p));
    expect(strays).toEqual([]);
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
    // The .ts fixtures are kept as .fixture so the repository's own type check does not resolve them.
    cpSync(join(CONSUMER, 'node-entry.ts.fixture'), join(consumer, 'node-entry.ts'));
    cpSync(join(CONSUMER, 'web-entry.ts.fixture'), join(consumer, 'web-entry.ts'));
    cpSync(join(CONSUMER, 'run.mjs'), join(consumer, 'run.mjs'));
    const base = { target: 'ES2022', strict: true, noEmit: true, lib: ['ES2023', 'DOM'] };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...base, module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] }, files: ['node-entry.ts'] }));
    // As Wrangler or Vite resolve for Workers and browsers: no "node" condition, no Node types.
    // skipLibCheck: the envelope types share a .d.ts with Node-only helpers (src/core/envelope.ts).
    writeFileSync(join(consumer, 'tsconfig.web.json'), JSON.stringify({ compilerOptions: { ...base, module: 'ESNext', moduleResolution: 'bundler', types: [], skipLibCheck: true }, files: ['web-entry.ts'] }));
    const nodeTypes = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer);
    expect(nodeTypes.stdout + nodeTypes.stderr).toBe('');
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
