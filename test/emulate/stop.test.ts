/** `hookrelay emulate` stopped with Ctrl-C says so, as listen does (issue 36 item 24), once its database is closed. */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';
import { startEmulateProcess } from './emulate-process.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('Ctrl-C: a last line says it stopped and the database is closed', { timeout: 30_000 }, async () => {
  const { dir, remove } = tempDir('hookrelay-emulate-stop-');
  cleanups.push(remove);
  const p = await startEmulateProcess(['--db', join(dir, 'emulator.db')]);
  cleanups.push(() => p.child.exitCode === null && p.child.signalCode === null && p.child.kill('SIGKILL'));
  p.child.kill('SIGINT');
  const [code] = (await p.exited) as [number | null];
  expect(code).toBe(0);
  expect(p.output().trimEnd().split('\n').at(-1)).toBe('hookrelay emulate: stopped; the database is closed');
});
