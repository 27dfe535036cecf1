import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker from a sibling module, compiled (.js in dist) or source (.ts under tsx or
 * vitest). Node cannot load a .ts worker by itself, so source workers first register tsx.
 */
export function spawnWorker(moduleUrl: string, name: string, options: WorkerOptions): Worker {
  // Named, so a debugger (and the walk of one delivery's test) can tell the writer from the checkpointer.
  options = { name, ...options };
  const fromSource = fileURLToPath(moduleUrl).endsWith('.ts');
  const target = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, moduleUrl);
  if (!fromSource) return new Worker(target, options);
  const tsxApi = tsxEsmApi(moduleUrl);
  const code = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(target.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}

/** The ESM entry of tsx's register API, resolved from the package's own export map. */
function tsxEsmApi(moduleUrl: string): string {
  const manifest = createRequire(moduleUrl).resolve('tsx/package.json');
  const exportsMap = JSON.parse(readFileSync(manifest, 'utf8')).exports as Record<string, { import: { default: string } }>;
  return pathToFileURL(join(dirname(manifest), exportsMap['./esm/api']!.import.default)).href;
}
