/** Each example app (examples/) against `hookrelay send`: a signed delivery is printed, a wrongly signed one refused with its hint. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SECRET = 'whsec_examples_0123456789';
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    }
  }
});

interface Running {
  url: string;
  /** Resolves with the first output line (stdout or stderr) that `test` accepts. */
  line(test: (line: string) => boolean): Promise<string>;
}

async function startExample(file: string): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: REPO,
    env: { ...process.env, WEBHOOK_SECRET: SECRET, PORT: '0', TSX_TSCONFIG_PATH: 'examples/tsconfig.json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  const waiting = new Set<{ test: (line: string) => boolean; resolve: (line: string) => void }>();
  const onChunk = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line);
      for (const w of waiting) if (w.test(line)) (waiting.delete(w), w.resolve(line));
    }
  };
  child.stdout!.on('data', onChunk);
  child.stderr!.on('data', onChunk);
  const line = (test: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const earlier = lines.find(test);
      if (earlier) return resolve(earlier);
      waiting.add({ test, resolve });
      child.once('exit', (code) => reject(new Error(`${file} exited (${code}) first:\n${lines.join('\n')}`)));
    });
  const listening = await line((l) => l.startsWith('listening on '));
  return { url: listening.slice('listening on '.length), line };
}

describe('examples/', () => {
  it('type-check against the library', async () => {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'examples/tsconfig.json'], { cwd: REPO }, (error, stdout, stderr) => {
        resolve({ code: error ? 1 : 0, output: stdout + stderr });
      });
    });
    expect(output).toBe('');
    expect(code).toBe(0);
  }, 60_000);

  it.each(['examples/express/server.ts', 'examples/fastify/server.ts', 'examples/fetch/serve-node.ts'])('%s verifies what `hookrelay send` sends', async (file) => {
    const app = await startExample(file);
    const sent = await runCli(['send', '--to', app.url, '--secret', SECRET, '--trigger', 'trustcenter.access_approved', '--json']);
    expect(sent.code).toBe(0);
    const printed = JSON.parse(await app.line((l) => l.includes('"received"'))) as { received: string; id: string; decidedBy: string };
    expect(printed.received).toBe('trustcenter.access_approved');
    expect(['reviewer', 'access_rule', 'api_client']).toContain(printed.decidedBy);
    expect(sent.stdout).toContain(printed.id);

    const forged = await runCli(['send', '--to', app.url, '--secret', 'whsec_not_the_one', '--trigger', 'trustcenter.access_requested']);
    expect(forged.code).not.toBe(0);
    const refused = JSON.parse(await app.line((l) => l.includes('"refused"'))) as { refused: string; hints: string[] };
    expect(refused.refused).toBe('SIGNATURE_MISMATCH');
    expect(refused.hints.join(' ')).toMatch(/right secret/);
  }, 60_000);
});
