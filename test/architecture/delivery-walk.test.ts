/**
 * docs/architecture.md's walk of one delivery stays true: every file of src/ whose code runs while
 * one signed delivery goes from the socket to its 2xx, on the request's thread and on the SQLite
 * writer thread that commits it (measured with V8's precise coverage around that one request, after
 * a warm-up; the writer's through the inspector's NodeWorker domain), is named in the walk, and
 * there are at most 15 of them, in at most 15 stops.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The walk's table in docs/architecture.md: its numbered stops, and every src/ path each names. */
function documentedWalk(): { stops: number; files: Set<string> } {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## One delivery, file by file'), doc.indexOf('\n## ', doc.indexOf('## One delivery, file by file') + 5));
  const rows = section.split('\n').filter((line) => /^\| \d+ \|/.test(line));
  const files = new Set<string>();
  for (const row of rows) for (const m of row.matchAll(/`(src\/[^`]+\.ts)`/g)) files.add(m[1]!);
  return { stops: rows.length, files };
}

describe("docs/architecture.md's walk of one delivery", () => {
  it('names every src/ file that runs from the socket to the 2xx, on both threads: at most 15 files, in at most 15 stops', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const app = await buildApp(testListenConfig(join(dir, 'walk.db')));
    cleanups.push(() => app.close());
    // Signed before the measure starts: the signing is the sender's code, not the receiver's.
    const signed = () => signedRequest({ t: Math.floor(Date.now() / 1000) });
    const send = async (req = signed()) => {
      const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
    };
    for (let i = 0; i < 5; i++) await send();

    const session = new Session();
    session.connect();
    cleanups.push(() => session.disconnect());
    // The writer thread only: the checkpointer wakes on its own timer, whatever the delivery does.
    const writer = (await workerSessions(session)).filter((worker) => worker.title.endsWith('writer-worker'));
    expect(writer).toHaveLength(1);
    const profilers = [(method: string, params?: object) => session.post(method, params) as Promise<unknown>, writer[0]!.call];
    for (const profiler of profilers) {
      await profiler('Profiler.enable');
      await profiler('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    }
    const measured = signed();
    // Resets the counts: only the next delivery is measured.
    for (const profiler of profilers) await profiler('Profiler.takePreciseCoverage');
    await send(measured);
    const [onRequestThread, onWriter] = await Promise.all(
      profilers.map(async (profiler) => ranIn(((await profiler('Profiler.takePreciseCoverage')) as Profiler.TakePreciseCoverageReturnType).result)),
    );
    for (const profiler of profilers) await profiler('Profiler.stopPreciseCoverage');
    expect(onRequestThread!.size).toBeGreaterThan(8); // the measure saw the pipeline at all
    expect(onWriter).toContain('src/store/sqlite/writer-worker.ts'); // and the commit on the writer thread
    const ran = new Set([...onRequestThread!, ...onWriter!]);
    const walk = documentedWalk();
    expect([...ran].filter((file) => !walk.files.has(file)).sort()).toEqual([]);
    expect(ran.size).toBeLessThanOrEqual(15);
    expect(walk.stops).toBeLessThanOrEqual(15);
  });
});

/** The files of src/ with a function that ran, from one thread's precise coverage. */
function ranIn(scripts: Profiler.ScriptCoverage[]): Set<string> {
  return new Set(
    scripts
      .filter((script) => script.functions.some((fn) => fn.ranges[0]!.count > 0))
      .map((script) => script.url.replace(/^file:\/\//, '').replace(/\?.*$/, ''))
      .map((path) => relative(ROOT, path))
      .filter((path) => path.startsWith('src/')),
  );
}

type ProtocolCall = (method: string, params?: object) => Promise<unknown>;

/** Each worker thread running now, by its title (`[worker N] <name>`), with a protocol call into it through the inspector's NodeWorker domain. */
async function workerSessions(session: Session): Promise<Array<{ title: string; call: ProtocolCall }>> {
  const attached: Array<{ sessionId: string; title: string }> = [];
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  let nextId = 1;
  session.on('NodeWorker.attachedToWorker', (message) => attached.push({ sessionId: message.params.sessionId, title: message.params.workerInfo.title }));
  session.on('NodeWorker.receivedMessageFromWorker', (message) => {
    const reply = JSON.parse(message.params.message) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = reply.id === undefined ? undefined : pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id!);
    if (reply.error) waiter.reject(new Error(reply.error.message));
    else waiter.resolve(reply.result);
  });
  // Already running workers are reported as the domain is enabled, each before this call returns.
  await session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  return attached.map(({ sessionId, title }) => ({
    title,
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        session.post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
      }),
  }));
}
