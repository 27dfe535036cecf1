/**
 * `hookrelay completion bash|zsh|fish`: each script, loaded into its real shell, completes the
 * command words, a command's flags, and file names after a flag that takes a value. CI installs
 * zsh and fish (.ci/run); where one is absent here, its cases are skipped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
const { dir, remove } = tempDir();
const scripts: Record<string, string> = {};

beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const { code, stdout, stderr } = await runCli(['completion', shell]);
    expect(code, stderr).toBe(0);
    scripts[shell] = join(dir, `completion.${shell}`);
    writeFileSync(scripts[shell]!, stdout);
  }
}, 60_000);
afterAll(() => remove());

/** What bash offers for a command line whose last word is being typed. */
function bash(words: string[], cwd = dir): string[] {
  const program = `source ${scripts.bash}; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _hookrelay; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', program, 'bash', 'hookrelay', ...words], { cwd, encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** What zsh offers: the completion functions it calls are stubbed to print their candidates. */
function zsh(words: string[]): string[] {
  const program = [
    'compdef() { :; }',
    // Its own array must not be named `items`, the caller's: ${(P)4} would read the empty local.
    // Like compadd under it, only the names that start with the word being completed.
    '_describe() { local -a offered; offered=("${(@P)4}"); local name prefix=${words[CURRENT]}; local -i found=1; for name in "${offered[@]%%:*}"; do [[ ${name[1,${#prefix}]} == "$prefix" ]] && { print -r -- $name; found=0; }; done; return found; }',
    'compadd() { [[ $1 == -a ]] && printf "%s\\n" "${(@P)2}"; }',
    '_files() { print -- "(files)"; }',
    `source ${scripts.zsh}`,
    'words=(hookrelay "$@"); CURRENT=${#words}; _hookrelay',
  ].join('\n');
  return execFileSync('zsh', ['-c', program, 'zsh', ...words], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** What fish offers for the command line (its own `complete -C`), without descriptions. */
function fish(line: string): string[] {
  return execFileSync('fish', ['-c', `source ${scripts.fish}; complete -C "$argv[1]"`, line], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((entry) => entry.split('\t')[0]!);
}

const EVENTS_SUBCOMMANDS = ['list', 'show', 'replay', 'retry', 'export', 'retarget', 'wait'];

describe('hookrelay completion', () => {
  it('refuses a shell it does not know, naming the ones it does (exit 2)', async () => {
    const { code, stdout, stderr } = await runCli(['completion', 'pwsh']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('Allowed choices are bash, zsh, fish');
  });

  it("lists every flag that `listen --help` lists, in listen's own row", async () => {
    const help = await runCli(['listen', '--help']);
    const flags = new Set(help.stdout.match(/--[a-z][a-z-]+/g));
    expect(flags.size).toBeGreaterThan(30);
    const offered = new Set(bash(['listen', '--']));
    for (const flag of flags) expect(offered, flag).toContain(flag);
  });

  describe('bash', () => {
    it('completes commands, subcommands and flags', () => {
      expect(bash(['ev'])).toEqual(['events']);
      expect(bash(['events', ''])).toEqual(EVENTS_SUBCOMMANDS);
      expect(bash(['events', 're'])).toEqual(['replay', 'retry', 'retarget']);
      expect(bash(['events', 'list', '--j'])).toEqual(['--json']);
      expect(bash(['listen', '--port', '0', '--forward-mo'])).toEqual(['--forward-mode']);
    });

    it("offers an option's values where the command lists them", () => {
      expect(bash(['listen', '--log-format', ''])).toEqual(['pretty', 'json', 'silent']);
      expect(bash(['events', 'list', '--status', 'd'])).toEqual(['duplicate']);
      expect(bash(['events', 'export', '--format', ''])).toContain('har');
      expect(bash(['schema', '--format', ''])).toEqual(['json-schema', 'openapi']);
    });

    it('offers file names after a flag that takes a value, and a flag that takes none does not hide the next word', () => {
      writeFileSync(join(dir, 'store-here.db'), '');
      expect(bash(['listen', '--db', 'store-h'])).toEqual(['store-here.db']);
      expect(bash(['events', '--help', 'list', '--li'])).toEqual(['--limit']);
    });

    it('keeps a file name whole (a space, a glob character), and never completes a command as a folder', () => {
      const folder = join(dir, 'hostile');
      mkdirSync(join(folder, 'events'), { recursive: true });
      for (const name of ['my capture.txt', '*', "it's.json"]) writeFileSync(join(folder, name), '');
      const inFolder = (words: string[]) => bash(words, folder);
      expect(inFolder(['verify', 'my'])).toEqual(['my capture.txt']);
      expect(inFolder(['listen', '--db', '']).sort()).toEqual(['*', 'events', "it's.json", 'my capture.txt']);
      expect(inFolder(['ev'])).toEqual(['events']);
      // File names are completed as paths only where a file is wanted, never for the command words.
      expect(execFileSync('bash', ['-c', `source ${scripts.bash}; complete -p hookrelay`], { encoding: 'utf8' }).trim()).toBe('complete -F _hookrelay hookrelay');
    });

    it('completes --flag=value, and the values of a command\'s argument', () => {
      expect(bash(['events', 'list', '--status', '=', 'd'])).toEqual(['duplicate']);
      expect(bash(['listen', '--log-format', '='])).toEqual(['pretty', 'json', 'silent']);
      expect(bash(['completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    });
  });

  describe.runIf(has('zsh'))('zsh', () => {
    it('completes commands, subcommands and flags', () => {
      expect(zsh(['ev'])).toEqual(['events']);
      expect(zsh(['completion', ''])).toEqual(['bash', 'zsh', 'fish']);
      expect(zsh(['events', ''])).toEqual(EVENTS_SUBCOMMANDS);
      expect(zsh(['events', 'list', '--j'])).toContain('--json');
      expect(zsh(['--help', 'events', ''])).toEqual(EVENTS_SUBCOMMANDS);
      expect(zsh(['listen', '--log-format', ''])).toEqual(['pretty', 'json', 'silent']);
    });

    it('offers file names after a flag that takes a value', () => {
      expect(zsh(['listen', '--db', ''])).toEqual(['(files)']);
      expect(zsh(['listen', '--db', 'x', '--forward-mo'])).toContain('--forward-mode');
    });
  });

  describe.runIf(has('fish'))('fish', () => {
    it('completes commands, subcommands and flags', () => {
      expect(fish('hookrelay ev')).toEqual(['events']);
      expect(fish('hookrelay events ').sort()).toEqual([...EVENTS_SUBCOMMANDS].sort());
      expect(fish('hookrelay events list --j')).toEqual(['--json']);
      expect(fish('hookrelay listen --log-format ').sort()).toEqual(['json', 'pretty', 'silent']);
      expect(fish('hookrelay completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
    });

    it('offers file names after a flag that takes a value', () => {
      writeFileSync(join(dir, 'store-here.db'), '');
      expect(fish('hookrelay listen --db store-h')).toEqual(['store-here.db']);
      expect(fish('hookrelay events --help list --li')).toEqual(['--limit']);
    });
  });
});
