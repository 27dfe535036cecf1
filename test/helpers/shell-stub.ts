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
