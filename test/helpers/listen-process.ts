import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cliEntry } from './cli-entry.js';


export interface ListenProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Resolves with the exit code or signal. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** Runs `hookrelay listen` from source in a child process and waits until it is listening. */
export async function startListenProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ListenProcess> {
  // Never a fixed port: a `listen` running on this machine must not fail the tests.
  const consolePort = args.includes('--no-console') || args.includes('--console-port') ? [] : ['--console-port', '0'];
  const child = spawn(process.execPath, [...cliEntry(), 'listen', '--port', '0', ...consolePort, '--log-format', 'json', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const url = await new Promise<string>((resolve, reject) => {
    let found = false;
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      // Looked for until found, never after: a regex flattens the whole output kept so far, and a
      // busy listen prints a line an attempt (quadratic: it slowed a 10,000-delivery test past its timeout).
      if (found) return;
      const match = /"receiver":"(http:\/\/[^"]+)"/.exec(out);
      if (match) {
        found = true;
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    exited.then(([code, signal]) => reject(new Error(`listen exited (${code ?? signal}) before listening:\n${out}`)));
  });
  return { child, url, output: () => out, exited };
}

/**
 * Runs `hookrelay listen` with its terminal banner (the pretty format) and resolves once the banner
 * is out, with the process and everything it printed; the caller kills it (`cleanup` receives the kill).
 */
export async function startListenBanner(args: string[], cleanup: (kill: () => void) => void): Promise<{ child: ChildProcess; banner: string }> {
  const child = spawn(process.execPath, [...cliEntry(), 'listen', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  cleanup(() => child.kill('SIGKILL'));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    let shown = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      // Read until the banner is out, never after (see startListenProcess).
      if (shown) return;
      out += chunk.toString();
      if (out.includes('Waiting for deliveries')) {
        shown = true;
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`listen exited:\n${out}`)));
  });
  return { child, banner: out };
}
