/**
 * `listen --forward-mode sync` in the terminal (issue 36 item 24): a delivery the app refuses reads as
 * what happened (the app's answer passed on to the sender), and its lines come in arrival order, as
 * an accepted one's do: the attempt, then the hand-off.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { attachTerminalReporter } from '../../src/reporter/terminal-reporter.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('the app answers 500, then 200: each attempt line first, then its hand-off, and the 500 says it was passed on', async () => {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const target = await startTarget((_r, i) => (i === 0 ? 500 : 200));
  cleanups.push(() => target.close());
  const app = await buildApp(testListenConfig(join(dir, 'p.db'), { forward: { to: target.url, secret: 'whsec_forward0123456789abcdef', timeoutMs: 5000, headers: [], mode: 'sync', maxTries: 3 } }));
  cleanups.push(() => app.close());
  let text = '';
  const out = { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream;
  const reporter = attachTerminalReporter(app.hub, { format: 'pretty', out, color: false });
  cleanups.push(() => reporter.detach());

  const id = 'a0000000-0000-4000-8000-0000000000f1';
  const statuses: number[] = [];
  for (let attempt = 1; attempt <= 2; attempt++) {
    const req = signedRequest({ t: Math.floor(Date.now() / 1000), id, attempt });
    const res = await request(app.receiverUrl, { method: 'POST', headers: req.headers, body: req.body });
    await res.body.dump();
    statuses.push(res.statusCode);
  }
  expect(statuses).toEqual([500, 200]);
  // The accepted hand-off is announced once its relay try is recorded, just after the answer.
  await until(() => (reporter.flush(), text.includes('→ 200 forwarded')), 'the hand-off line');

  // The refused hand-off is the attempt's own line (its answer passed on); only a stored delivery has relay tries.
  const lines = text.trimEnd().split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  500 app refused  trustcenter\\.access_requested  ${id}  attempt 1  the app answered 500: passed on to the sender, not stored$`));
  expect(lines[1]).toMatch(new RegExp(`200 accepted +trustcenter\\.access_requested  ${id}  attempt 2$`));
  expect(lines[2]).toMatch(new RegExp(`→ 200 forwarded  ${id}  `));
  const times = lines.map((l) => l.slice(0, 12));
  expect([...times].sort()).toEqual(times);
});
