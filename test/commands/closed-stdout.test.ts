/** `hookrelay triggers | head -1`: a reader that closes the pipe early ends the output; the CLI does not crash. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cliEntry } from '../helpers/cli-entry.js';

describe('a closed stdout', () => {
  it('exits 0 without an unhandled EPIPE when the reader has gone', async () => {
    const child = spawn(process.execPath, [...cliEntry(), 'triggers'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before the first line is written
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  }, 30_000);
});
