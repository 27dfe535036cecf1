/** The import rules of docs/architecture.md, checked by dependency-cruiser (.dependency-cruiser.cjs). */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DEPCRUISE = join(REPO, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(REPO, '.dependency-cruiser.cjs');

function depcruise(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'err'], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr });
    });
  });
}

describe('import rules', () => {
  it('hold for src/: no import points up a layer or sideways within one, and the core imports no library', async () => {
    const { code, output } = await depcruise(REPO);
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  }, 60_000);

  it('fail on an upward import, a sideways one, a library in the core, and a library imported dynamically', async () => {
    const { dir, remove } = tempDir();
    try {
      const write = (path: string, text: string) => {
        mkdirSync(join(dir, path, '..'), { recursive: true });
        writeFileSync(join(dir, path), text);
      };
      write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
      write('package.json', JSON.stringify({ name: 'fixture', type: 'module', dependencies: { fastify: '5' } }));
      symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
      write('src/app/build.ts', 'export const built = 1;\n');
      write('src/relay/worker.ts', 'export const worker = 1;\n');
      write('src/core/pure.ts', "import { built } from '../app/build.js';\nimport Fastify from 'fastify';\nexport const pure = [built, Fastify];\n");
      write('src/ingest/route.ts', "import { worker } from '../relay/worker.js';\nexport const route = worker;\n");
      write('src/relay/lazy.ts', "export const load = () => import('fastify');\n");
      const { code, output } = await depcruise(dir);
      expect(code).not.toBe(0);
      expect(output).toMatch(/core-imports-up: src\/core\/pure\.ts → src\/app\/build\.ts/);
      expect(output).toMatch(/ingest-imports-sideways: src\/ingest\/route\.ts → src\/relay\/worker\.ts/);
      expect(output).toMatch(/core-is-pure: src\/core\/pure\.ts → \S*node_modules\/fastify\//);
      expect(output).toMatch(/no-dynamic-import-of-a-library: src\/relay\/lazy\.ts → \S*node_modules\/fastify\//);
    } finally {
      remove();
    }
  }, 60_000);

  it('leaves the environment to src/config/: no command, app or core file reads process.env', () => {
    const readers: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (full.endsWith('.ts') && readFileSync(full, 'utf8').includes('process.env')) readers.push(full.slice(REPO.length));
      }
    };
    for (const folder of ['commands', 'app', 'core', 'ingest', 'relay', 'bridge', 'handoff']) walk(join(REPO, 'src', folder));
    expect(readers).toEqual([]);
  });
});
