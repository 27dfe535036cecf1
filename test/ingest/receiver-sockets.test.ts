/** Over real sockets: a duplicate storm, and a crash under load. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startListenProcess } from '../helpers/listen-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testListenConfig } from '../helpers/listen-config.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function config(dbPath: string): ListenConfig {
  return testListenConfig(dbPath);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('duplicate storm', () => {
  it('turns many concurrent copies of the same ids into one delivery each, every copy answered 2xx', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const app = await buildApp(config(join(dir, 'storm.db')));
    cleanups.push(() => app.close());
    const agent = new Agent({ connections: 64 });
    cleanups.push(() => agent.close());

    const ids = Array.from({ length: 40 }, (_, i) => `storm-${i}`);
    const copies = 15;
    const sends = ids.flatMap((id) =>
      Array.from({ length: copies }, async (_, copy) => {
        const req = signedRequest({ id, attempt: copy + 1, t: nowSeconds() });
        const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body, dispatcher: agent });
        const body = (await res.body.json()) as { data: { duplicate: boolean } };
        return { id, status: res.statusCode, duplicate: body.data.duplicate };
      }),
    );
    const answers = await Promise.all(sends);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    for (const id of ids) {
      expect(answers.filter((a) => a.id === id && !a.duplicate)).toHaveLength(1);
      const attempts = await app.store.listAttempts({ deliveryId: id, limit: 100 });
      expect(attempts).toHaveLength(copies);
    }
    const stored = await app.store.listDeliveries({ limit: 1000 });
    expect(stored.items.map((d) => d.id).sort()).toEqual([...ids].sort());
  });
});

describe('crash under load', () => {
  it('keeps every acknowledged delivery byte-identical through kill -9, and the file stays sound', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const dbPath = join(dir, 'crash.db');
    // A slow disk (15 ms per commit) makes an answer sent before its commit visible to the kill.
    const listen = await startListenProcess(['--db', dbPath, '--secret', TEST_SECRET, '--test-commit-delay', '15']);
    cleanups.push(() => listen.child.kill('SIGKILL'));
    const agent = new Agent({ connections: 48 });
    cleanups.push(() => agent.destroy());

    const acked = new Map<string, Buffer>();
    const killAfter = 600;
    let killed = false;
    let sent = 0;
    const worker = async () => {
      while (!killed && sent < 20_000) {
        sent++;
        const req = signedRequest({ t: nowSeconds() });
        try {
          const res = await request(listen.url, { method: 'POST', headers: req.headers, body: req.body, dispatcher: agent });
          await res.body.dump();
          if (res.statusCode === 200) acked.set(req.id, req.body);
        } catch {
          return; // the process is gone
        }
        if (acked.size >= killAfter && !killed) {
          killed = true;
          listen.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 48 }, worker));
    const [, signal] = await listen.exited;
    expect(signal).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(killAfter);

    const db = new Database(dbPath);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const byId = db.prepare<[string], { raw_body: Buffer }>('SELECT raw_body FROM deliveries WHERE id = ?');
    const missing: string[] = [];
    for (const [id, body] of acked) {
      const row = byId.get(id);
      if (!row || !row.raw_body.equals(body)) missing.push(id);
    }
    expect(missing).toEqual([]);
    const doubled = db.prepare('SELECT id, COUNT(*) n FROM deliveries GROUP BY id HAVING n > 1').all();
    expect(doubled).toEqual([]);
    db.close();

    // A restart on the same file knows them all: a retry of an acknowledged delivery is a duplicate.
    const again = await startListenProcess(['--db', dbPath, '--secret', TEST_SECRET]);
    cleanups.push(() => again.child.kill('SIGKILL'));
    const [firstId] = acked.keys();
    const retry = signedRequest({ id: firstId!, attempt: 2, t: nowSeconds() });
    const res = await request(again.url, { method: 'POST', headers: retry.headers, body: acked.get(firstId!)!, dispatcher: agent });
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { data: { duplicate: boolean } }).data.duplicate).toBe(true);
  });
});
