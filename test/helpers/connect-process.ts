import { spawn, type ChildProcess } from 'node:child_process';
import { cliEntry } from './cli-entry.js';

/**
 * Runs `hookrelay connect` (JSON log) in a child process and resolves once it reports `live`; the
 * caller kills it. Its output is read only until then: the laptop prints a line for every relay try,
 * and searching all of it at every chunk (a regex flattens the string kept so far) made a
 * 10,000-delivery test quadratic in its output, past its timeout.
 */
export async function startConnectProcess(args: string[], onStart: (child: ChildProcess) => void): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...cliEntry(), 'connect', ...args, '--log-format', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  onStart(child);
  let out = '';
  let live = false;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`connect did not go live:\n${out}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (live) return;
      out += chunk.toString();
      if (/"msg":"live"/.test(out)) {
        live = true;
        out = '';
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (!live) out += chunk.toString();
    });
  });
  return child;
}
