/**
 * Runs generated shell text in real shells with `curl` replaced by a stub (issue 13). The stub, first
 * on PATH in a temporary folder, writes its arguments (NUL-separated) and its stdin to numbered files,
 * so a test can compare them with the bytes the command was meant to carry.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

export interface Shell {
  name: string;
  /** Absolute path of the shell; absent when it is not installed. */
  path: string;
  args: readonly string[];
  /** Read the text on stdin like typed or pasted lines (interactive: history expansion, no rc files). */
  interactive: boolean;
}

const at = (path: string) => (existsSync(path) ? path : '');
export const DASH = at('/usr/bin/dash') || at('/bin/dash');
export const BASH = at('/usr/bin/bash') || at('/bin/bash');
/** zsh is optional (CI does not install it): tests using it skip when it is absent. */
export const ZSH = at('/usr/bin/zsh') || at('/bin/zsh');

/** Run as a script file. */
export const SCRIPT_SHELLS: Shell[] = [
  { name: 'dash', path: DASH, args: [], interactive: false },
  { name: 'bash', path: BASH, args: [], interactive: false },
  { name: 'zsh', path: ZSH, args: [], interactive: false },
];
/** Pasted into an interactive shell (bash and zsh expand `!!` history references there). */
export const PASTE_SHELLS: Shell[] = [
  { name: 'bash -i', path: BASH, args: ['--norc', '--noprofile', '-i'], interactive: true },
  { name: 'zsh -i', path: ZSH, args: ['-f', '-i'], interactive: true },
];

export interface CurlCall {
  args: Buffer[];
  stdin: Buffer;
}

export interface ShellRun {
  calls: CurlCall[];
  /** True when the injected `touch <marker>` ran. */
  markerExists: boolean;
  code: number | null;
  stderr: string;
}

/** A temporary folder for one test: run() may be called several times, the marker is shared. */
export interface Sandbox {
  dir: string;
  /** A file that must never exist: every hostile input tries to create it. */
  marker: string;
  run(shell: Shell, text: string): Promise<ShellRun>;
  remove(): void;
}

export function createSandbox(): Sandbox {
  const { dir, remove } = tempDir('hookrelay-shell-');
  const marker = join(dir, 'pwned');
  let runs = 0;
  return {
    dir,
    marker,
    remove,
    async run(shell, text) {
      const n = ++runs;
      const bin = join(dir, `bin-${n}`);
      const out = join(dir, `out-${n}`);
      const script = join(dir, `script-${n}.sh`);
      mkdirSync(bin);
      mkdirSync(out);
      writeFileSync(
        join(bin, 'curl'),
        [
          '#!/bin/sh',
          `out='${out}'`,
          'n=$(( $(cat "$out/count" 2>/dev/null || echo 0) + 1 ))',
          'echo "$n" > "$out/count"',
          `printf '%s\\0' "$@" > "$out/args.$n"`,
          'cat > "$out/stdin.$n"',
          '',
        ].join('\n'),
      );
      chmodSync(join(bin, 'curl'), 0o755);
      writeFileSync(script, text);

      const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, LC_ALL: 'C.UTF-8', HOME: dir, HISTFILE: join(dir, 'history') };
      const stdinFd = shell.interactive ? openSync(script, 'r') : 'ignore';
      const child = spawn(shell.path, shell.interactive ? [...shell.args] : [...shell.args, script], { cwd: dir, env, stdio: [stdinFd, 'ignore', 'pipe'] });
      if (typeof stdinFd === 'number') closeSync(stdinFd);
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', resolve);
      });

      const count = existsSync(join(out, 'count')) ? Number(readFileSync(join(out, 'count'), 'utf8')) : 0;
      const calls: CurlCall[] = [];
      for (let i = 1; i <= count; i++) {
        const raw = readFileSync(join(out, `args.${i}`));
        const args: Buffer[] = [];
        let start = 0;
        for (let j = 0; j < raw.length; j++) {
          if (raw[j] === 0) {
            args.push(raw.subarray(start, j));
            start = j + 1;
          }
        }
        calls.push({ args, stdin: readFileSync(join(out, `stdin.${i}`)) });
      }
      return { calls, markerExists: existsSync(marker), code, stderr };
    },
  };
}

/** One HTTP/1.1 request as it came over the wire: the request line and header lines as bytes, in order. */
export interface RawRequest {
  /** The request line without CRLF, e.g. `POST /webhooks HTTP/1.1`. */
  line: Buffer;
  /** Each header line split at its first colon, value without the optional whitespace around it. */
  headers: Array<{ name: Buffer; value: Buffer }>;
  body: Buffer;
}

/**
 * Parses the bytes of one request (Content-Length framing only, which is what curl sends for
 * `--data-binary`); null while they are incomplete.
 */
export function parseRawRequest(bytes: Buffer): RawRequest | null {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const lines: Buffer[] = [];
  for (let start = 0; start < end; ) {
    const eol = bytes.indexOf('\r\n', start);
    const stop = eol < 0 || eol > end ? end : eol;
    lines.push(bytes.subarray(start, stop));
    start = stop + 2;
  }
  const headers = lines.slice(1).map((l) => {
    const colon = l.indexOf(':');
    let from = colon + 1;
    let to = l.length;
    while (from < to && (l[from] === 0x20 || l[from] === 0x09)) from++;
    while (to > from && (l[to - 1] === 0x20 || l[to - 1] === 0x09)) to--;
    return { name: l.subarray(0, colon), value: l.subarray(from, to) };
  });
  const length = headers.find((h) => h.name.toString('latin1').toLowerCase() === 'content-length');
  const bodyLength = length ? Number(length.value.toString('latin1')) : 0;
  if (bytes.length < end + 4 + bodyLength) return null;
  return { line: lines[0]!, headers, body: bytes.subarray(end + 4, end + 4 + bodyLength) };
}

/** A server that records each request's raw bytes and answers 200 (one request per connection). */
export interface RawCapture {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  requests: RawRequest[];
  close(): Promise<void>;
}

export async function startRawCapture(): Promise<RawCapture> {
  const { createServer } = await import('node:net');
  const requests: RawRequest[] = [];
  const server = createServer((socket) => {
    let bytes = Buffer.alloc(0);
    let done = false;
    socket.on('data', (chunk: Buffer) => {
      if (done) return;
      bytes = Buffer.concat([bytes, chunk]);
      const request = parseRawRequest(bytes);
      if (!request) return;
      done = true;
      requests.push(request);
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
