/** `hookrelay emulate` from source in a child process, for crash and end-to-end tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface EmulateProcess {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  /** Resolves once the output matches `pattern` (output already seen counts). */
  waitForOutput(pattern: RegExp): Promise<void>;
  exited: Promise<unknown>;
}

export async function startEmulateProcess(args: string[]): Promise<EmulateProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'emulate', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const exited = once(child, 'exit');
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    for (const l of [...listeners]) l();
  });
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString();
    for (const l of [...listeners]) l();
  });
  const waitForOutput = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(out)) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      void exited.then(() => {
        if (!pattern.test(out)) reject(new Error(`emulate exited before ${pattern}:\n${out}`));
      });
      check();
    });
  await waitForOutput(/API at (http:\/\/\S+\/v1)/);
  const baseUrl = /API at (http:\/\/\S+\/v1)/.exec(out)![1]!;
  return { child, baseUrl, output: () => out, waitForOutput, exited };
}

export async function apiCall(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}
