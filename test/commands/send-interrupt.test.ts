/**
 * Ctrl-C on `hookrelay send` (issue 13 item 16): it stops sending new attempts and still prints the
 * summary of what was done, in a real child process sent SIGINT.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

describe('send, interrupted', () => {
  it('Ctrl-C while a retry waits: no further attempt, the summary, exit 130', async () => {
    let arrivals = 0;
    server = createServer((req, res) => {
      arrivals += 1;
      req.resume();
      req.on('end', () => res.writeHead(503).end());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

    // Real time: after the 503 the first retry waits 48-72 s, so the run is mid-wait when interrupted.
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'send', '--to', url, '--secret', 'whsec_interrupt_test_secret_0123456789', '--count', '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if ((out.match(/→ retry 1 in/g) ?? []).length === 2) resolve();
      });
    });
    child.kill('SIGINT');
    const [code, signal] = await exited;

    expect(signal, err).toBeNull();
    expect(code, out + err).toBe(130);
    expect(err).toMatch(/Interrupted: no new attempts/);
    expect(out).toMatch(/Summary: 2 deliveries to .*: 0 succeeded, 0 failed, 2 stopped while retrying/);
    expect(out).toMatch(/2 attempts in .*; webhook active, consecutiveFailures 0; seed \d+/);
    expect(out).toMatch(/interrupted \(Ctrl-C\): no attempt was sent after it/);
    expect(arrivals).toBe(2);
  }, 60_000);
});
