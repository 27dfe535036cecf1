/** `hookrelay listen --fault …` as a user runs it: a child process, the built-in sender against it. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../helpers/signed-delivery.js';
import { startListenProcess } from '../helpers/listen-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { send } from './fault-helpers.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('listen --fault', () => {
  it('answers by the rules given on the command line, and lists them when it starts', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const listen = await startListenProcess([
      '--db', join(dir, 'h.db'),
      '--secret', TEST_SECRET,
      '--fault', '503 retry-after=120 attempt=1',
      '--fault', 'hang attempt=2',
      '--seed', '42',
    ]);
    cleanups.push(() => listen.child.kill('SIGKILL'));
    const listening = JSON.parse(listen.output().split('\n')[0]!) as { faultRules: unknown; seed: number };
    expect(listening.faultRules).toEqual([
      { id: 'r1', line: '503 retry-after=120 attempt=1' },
      { id: 'r2', line: 'hang attempt=2' },
    ]);
    expect(listening.seed).toBe(42);

    const run = await send(listen.url, { policy: { maxAttempts: 6 }, timeoutMs: 300 });
    expect(run.finished.map((f) => [f.outcome.failureClass, f.decision.action])).toEqual([
      ['http_5xx', 'retry'],
      ['timeout', 'retry'],
      [null, 'succeed'],
    ]);
  });

  it('refuses a bad rule at startup with the position and the reason, with the other problems', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'listen', '--db', join(dir, 'h.db'), '--fault', '5O3', '--tolerance', '0'], {
      env: { ...process.env, HOOKRELAY_FAULT: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toContain('hookrelay: 2 problems with the settings:');
    expect(stderr).toContain('--fault "5O3": status must be 3 digits at column 1');
    expect(stderr).toContain('--tolerance');
  });
});
