/**
 * Scenario 2, SIGTERM under load: `listen --forward-to` a slow app is stopped gracefully while
 * requests are in commit and hand-offs are in flight. Every answered request is stored, every
 * stored delivery was answered, every hand-off the app answered is on record, and the process
 * exits 0; after a restart the outbox hands the rest on, none twice.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';
import { checkDatabase, fresh, runLoad, startListen, summary, type Answer } from './helpers/kit.js';
import { startRelayTarget } from './helpers/relay-target.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const CONCURRENCY = 32;
const STOP_AFTER = 800;

describe('SIGTERM under load', () => {
  it('drains in-flight requests and hand-offs, exits 0, and loses nothing acknowledged', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const dbPath = join(dir, 'sigterm.db');
    const target = await startRelayTarget();
    cleanups.push(() => target.close());
    // The app takes 150 ms per answer: hand-offs are always in flight when the stop comes.
    target.delayMs = 150;
    target.epoch = 1;
    // A slow disk (20 ms per commit): requests are in commit when the stop comes.
    const listen = await startListen(dbPath, ['--forward-to', target.url, '--forward-timeout', '5000', '--test-commit-delay', '20']);
    cleanups.push(() => listen.child.kill('SIGKILL'));
    const dispatcher = new Agent({ connections: CONCURRENCY });
    cleanups.push(() => dispatcher.destroy());

    const acked = new Map<string, Buffer>();
    const answers: Answer[] = [];
    let stopped = false;
    let handoffsAtStop = 0;
    await runLoad({
      url: listen.url,
      dispatcher,
      concurrency: CONCURRENCY,
      next: () => fresh(),
      onAnswer: (answer, req) => {
        answers.push(answer);
        if (answer.status === 200) acked.set(req.id, req.body);
        if (!stopped && acked.size >= STOP_AFTER) {
          stopped = true;
          handoffsAtStop = target.handoffs.length;
          listen.child.kill('SIGTERM');
        }
        // Keep sending into the stop until the listener refuses connections.
        return stopped && answer.status === null;
      },
    });
    const [code, signal] = await listen.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const handoffsByStop = target.handoffs.length;

    const check = checkDatabase(dbPath, acked);
    expect(check.integrity).toBe('ok');
    expect(check.missing).toEqual([]);
    expect(check.doubled).toEqual([]);
    // Drained, not cut: nothing was stored whose sender did not get its 2xx.
    expect(check.stored).toBe(acked.size);
    const afterStop = answers.filter((a) => a.status !== 200);
    // What the closing listener still answered is a retryable 503, never a 5xx of another kind.
    expect(afterStop.filter((a) => a.status !== null && a.status !== 503)).toEqual([]);

    // Every hand-off the app answered before the exit is on record as done: none will be repeated.
    const db = new Database(dbPath, { readonly: true });
    const doneIds = new Set(
      db.prepare<[], { id: string }>("SELECT d.id FROM relay_jobs j JOIN deliveries d ON d.seq = j.delivery_seq WHERE j.state = 'done'").all().map((r) => r.id),
    );
    db.close();
    const answeredByApp = target.handoffs.map((h) => h.id);
    expect(answeredByApp.filter((id) => !doneIds.has(id))).toEqual([]);

    // Restart: the outbox hands on the rest, and nothing twice.
    target.epoch = 2;
    target.delayMs = 0;
    const again = await startListen(dbPath, ['--forward-to', target.url]);
    cleanups.push(() => again.child.kill('SIGKILL'));
    await target.waitForIds(acked.keys(), 30_000);
    again.child.kill('SIGTERM');
    expect((await again.exited)[0]).toBe(0);
    const ids = target.handoffs.map((h) => h.id);
    expect(ids.length - new Set(ids).size).toBe(0);

    summary('SIGTERM under load', {
      acknowledged: acked.size, answeredAfterStop: afterStop.length,
      refusedAfterStop: afterStop.filter((a) => a.status === 503).length,
      socketErrorsAfterStop: Object.fromEntries([...new Set(afterStop.map((a) => a.error))].map((e) => [e, afterStop.filter((a) => a.error === e).length])),
      handoffsInFlightAtStop: handoffsByStop - handoffsAtStop, handoffsBeforeRestart: handoffsByStop,
      handoffsTotal: target.handoffs.length, exitCode: code, lost: 0, handedOnTwice: 0,
    });
  });
});
