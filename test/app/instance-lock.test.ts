/** One `listen` per SQLite file: a second is refused, read-only commands are not, and a killed one leaves no lock. */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { InstanceLockedError } from '../../src/store/sqlite/instance-lock.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { startListenProcess } from '../helpers/listen-process.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dbIn(): string {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  return join(dir, 'data', 'hookrelay.db');
}

describe('one listen per SQLite file', () => {
  it('refuses a second app on a served file, naming the first, and allows it once the first has closed', async () => {
    const db = dbIn();
    const first = await buildApp(testListenConfig(db));
    let firstOpen = true;
    cleanups.push(() => firstOpen && first.close());
    const refused = await buildApp(testListenConfig(db)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(InstanceLockedError);
    const message = (refused as Error).message;
    expect(message).toContain(`pid ${process.pid}`);
    expect(message).toContain(first.receiverUrl);
    expect(message).toMatch(/pass another --db, or run several instances on one PostgreSQL database with --store postgres:\/\//);
    await first.close();
    firstOpen = false;
    const second = await buildApp(testListenConfig(db));
    await second.close();
  });

  it('writes who holds the lock readable by the owner only, and never the console token', async () => {
    const db = dbIn();
    const app = await buildApp(testListenConfig(db, { console: { port: 0, host: '0.0.0.0', allowedHosts: [], token: null } }));
    cleanups.push(() => app.close());
    expect(app.consoleToken).not.toBeNull();
    const owner = `${db}.owner.json`;
    expect(statSync(owner).mode & 0o077).toBe(0);
    const text = readFileSync(owner, 'utf8');
    expect(text).not.toContain(app.consoleToken!);
    expect(JSON.parse(text)).toMatchObject({ pid: process.pid, receiverUrl: app.receiverUrl });
  });

  it('refuses a second listen process with the pid and ports of the first; read-only commands work beside it; kill -9 leaves no lock', async () => {
    const db = dbIn();
    const first = await startListenProcess(['--db', db]);
    cleanups.push(() => first.child.kill('SIGKILL'));
    const consoleUrl = /"console":"(http:\/\/[^"]+)"/.exec(first.output())![1]!;

    const second = await runCli(['listen', '--db', db, '--port', '0', '--console-port', '0']);
    expect(second.code).toBe(3);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);
    expect(second.stderr).toContain(first.url);
    expect(second.stderr).toContain(consoleUrl);
    expect(second.stderr).toMatch(/pass another --db/);

    const list = await runCli(['events', 'list', '--db', db]);
    expect(list.code).toBe(0);
    const stats = await runCli(['db', 'stats', '--db', db]);
    expect(stats.code).toBe(0);

    first.child.kill('SIGKILL');
    await first.exited;
    const third = await startListenProcess(['--db', db]);
    cleanups.push(() => third.child.kill('SIGKILL'));
    expect(third.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
  });
});

describe('the lock held by connect', () => {
  it('names connect and the bridge it is fed by, without the URL secret', async () => {
    const { acquireInstanceLock } = await import('../../src/store/sqlite/instance-lock.js');
    const { tempDir } = await import('../helpers/temp-dir.js');
    const { dir, remove } = tempDir();
    const dbPath = join(dir, 'laptop.db');
    const held = acquireInstanceLock(dbPath);
    try {
      held.describe({ command: 'connect', receiverUrl: 'wss://hooks.example.com/bridge?api_key=s3cr3t-value', consoleUrl: null });
      let message = '';
      try {
        acquireInstanceLock(dbPath).release();
      } catch (err) {
        expect(err).toBeInstanceOf(InstanceLockedError);
        message = (err as Error).message;
      }
      expect(message).toMatch(/already served by another `hookrelay connect` \(pid \d+, fed by wss:\/\/hooks\.example\.com\/bridge\?api_key=\[redacted\]/);
      expect(message).not.toContain('s3cr3t');
      expect(readFileSync(`${dbPath}.owner.json`, "utf8")).not.toContain("s3cr3t");
    } finally {
      held.release();
      remove();
    }
  });
});
