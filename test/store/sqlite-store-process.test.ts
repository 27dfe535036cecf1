/**
 * What keeps a process alive, in a process of its own (vitest's own would keep any alive): a write
 * in flight does, an idle store does not, and close() holds on until the writer has closed, even
 * when a write comes in while it closes.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const STORE = resolve('src/store/sqlite/sqlite-store.ts');
const FIXTURES = resolve('test/helpers/fixtures.ts');
const dirs: Array<() => void> = [];
afterEach(() => dirs.splice(0).forEach((remove) => remove()));

async function runScript(body: string): Promise<{ code: number | null; out: string; err: string }> {
  const t = tempDir();
  dirs.push(t.remove);
  const file = join(t.dir, 'script.mts');
  writeFileSync(
    file,
    `import { createSqliteStore } from ${JSON.stringify(STORE)};\nimport { attemptFor, makeDelivery } from ${JSON.stringify(FIXTURES)};\nconst path = ${JSON.stringify(join(t.dir, 'h.db'))};\n${body}\n`,
  );
  return new Promise((resolveRun) => {
    execFile(process.execPath, ['--import', 'tsx', file], (error, out, err) => {
      resolveRun({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err });
    });
  });
}

describe('sqlite store: what keeps the process alive', () => {
  it('a write in flight keeps it alive until committed; an idle store lets it exit', async () => {
    const { code, out, err } = await runScript(`
const store = await createSqliteStore(path, { commitDelayMs: 300 });
const d = makeDelivery();
void store.accept(d, attemptFor(d)).then((r) => console.log('committed', r.outcome));
console.log('sent');
`);
    expect(err).toBe('');
    expect(out).toBe('sent\ncommitted accepted\n');
    expect(code).toBe(0);
  }, 20_000);

  it('close() waits for the writer to close, even when a write comes in while it closes', async () => {
    const { code, out, err } = await runScript(`
const store = await createSqliteStore(path);
const first = makeDelivery();
await store.accept(first, attemptFor(first));
const closed = store.close();
const late = makeDelivery();
const answer = await store.accept(late, attemptFor(late)).then((r) => r.outcome, (e) => 'refused');
console.log('late write', answer);
await closed;
console.log('closed');
`);
    expect(err).toBe('');
    expect(out).toMatch(/^late write (accepted|refused)\nclosed\n$/);
    expect(code).toBe(0);
  }, 20_000);
});
