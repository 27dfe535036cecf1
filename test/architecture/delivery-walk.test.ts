/**
 * docs/architecture.md's walk of one delivery stays true: every file of src/ whose code runs on this
 * thread while one signed delivery goes from the socket to its 2xx (measured with V8's precise
 * coverage around that one request, after a warm-up) is named in the walk, and the walk has at most
 * 15 stops. The commit itself runs on the SQLite writer thread, which this measure does not see; the
 * walk names its files from reading them.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
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
  it('names every src/ file that runs from the socket to the 2xx, in at most 15 stops', async () => {
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
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    const measured = signed();
    await session.post('Profiler.takePreciseCoverage'); // resets the counts: only the next delivery is measured
    await send(measured);
    const { result } = await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.stopPreciseCoverage');

    const ran = new Set(
      result
        .filter((script) => script.functions.some((fn) => fn.ranges[0]!.count > 0))
        .map((script) => script.url.replace(/^file:\/\//, '').replace(/\?.*$/, ''))
        .map((path) => relative(ROOT, path))
        .filter((path) => path.startsWith('src/')),
    );
    expect(ran.size).toBeGreaterThan(10); // the measure saw the pipeline at all
    const walk = documentedWalk();
    expect([...ran].filter((file) => !walk.files.has(file)).sort()).toEqual([]);
    expect(walk.stops).toBeLessThanOrEqual(15);
  });
});
