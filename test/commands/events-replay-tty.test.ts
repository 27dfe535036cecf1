/**
 * A bulk replay on a real terminal (issue 39: "the progress bar shows on a terminal"): run under a
 * pseudo-terminal made by util-linux's `script`, the job redraws one line in place (carriage return and
 * erase-line, count, percent, rate, time left) and ends it; in a pipe the same job writes plain lines.
 */
import { execFile } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { seededDeliveries } from '../helpers/bulk-replay-kills.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { runCli } from '../helpers/run-cli.js';
import { shellQuote } from '../../src/core/shell-command.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Runs a command line under a pseudo-terminal; resolves with what the terminal showed. */
function onTerminal(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; shown: string }> {
  return new Promise((resolve) => {
    execFile('script', ['-qec', argv.map(shellQuote).join(' '), '/dev/null'], { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, shown: stdout });
    });
  });
}

describe('events replay on a terminal', () => {
  it('redraws one progress line with count, rate and time left, and writes plain lines in a pipe', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const { db } = await seededDeliveries(dir, 40);
    const target = await startTarget();
    cleanups.push(() => target.close());
    const args = ['events', 'replay', '--db', db, '--all', '--to', target.url, '--secret', 'whsec_tty_replay', '--rate', '40/s'];

    // CI set to nothing: a CI terminal gets plain lines, by design.
    const tty = await onTerminal([process.execPath, ...cliEntry(), ...args], { CI: '', NO_COLOR: '1' });
    expect(tty.code, tty.shown).toBe(0);
    const redraws = tty.shown.split('\r\u001b[2K').slice(1);
    expect(redraws.length).toBeGreaterThanOrEqual(3);
    expect(redraws[0]).toMatch(/^replay rj_[0-9a-z]{12}: \d+\/40 \(\d+%\)/);
    expect(redraws.some((line) => /\/s {2}\d+:\d\d left/.test(line))).toBe(true);
    expect(redraws.at(-1)).toMatch(/^replay rj_[0-9a-z]{12}: 40\/40 \(100%\) .*\r?\n/);

    const piped = await runCli(args, { env: { CI: '' } });
    expect(piped.code).toBe(0);
    expect(piped.stderr).not.toContain('\u001b[2K');
    expect(piped.stderr).toMatch(/^replay rj_[0-9a-z]{12}: 40\/40 \(100%\)/m);
  }, 30_000);

  it('db prune and events list --all into a file count on the terminal, apart from what they print', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const { db } = await seededDeliveries(dir, 40);
    const entry = [process.execPath, ...cliEntry()].map(shellQuote).join(' ');
    const run = (args: string, env: NodeJS.ProcessEnv = {}) =>
      new Promise<string>((resolve) => {
        execFile('script', ['-qec', `${entry} ${args}`, '/dev/null'], { env: { ...process.env, CI: '', NO_COLOR: '1', ...env } }, (_error, stdout) => resolve(stdout));
      });
    const listed = await run(`events list --all --db ${shellQuote(db)} > ${shellQuote(`${dir}/all.ndjson`)}`);
    expect(listed).toMatch(/\r\u001b\[2Klisted \(deliveries\): 40/);
    const pruned = await run(`db prune --db ${shellQuote(db)} --older-than 5m --dry-run`);
    expect(pruned).toMatch(/\r\u001b\[2Kwould remove \(deliveries\): \d+/);
    expect(pruned).toMatch(/would remove \d+ deliveries/);
  }, 30_000);
});
