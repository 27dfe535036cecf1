/** `hookrelay emulate fire trustcenter.access_requested` as a user runs it: the request it creates resolves through the API. */
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startEmulator, type Harness } from '../emulate/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('the trigger as a positional argument creates a pending request and prints its id', { timeout: 30_000 }, async () => {
  h = await startEmulator({ plan: 'premium' });
  const run = await runCli(['emulate', 'fire', 'trustcenter.access_requested', '--api-url', h.app.baseUrl], { env: { HOOKRELAY_API_KEY: h.keys.aFull } });
  expect(run.code, run.stderr).toBe(0);
  const id = /Created access request ([0-9a-f-]{36})/.exec(run.stdout)?.[1];
  expect(id).toBeDefined();
  // spec 3: "a request is PENDING until decided"; spec 4.2: GET /trust-center/access-requests/{id}
  const res = await h.api('GET', `/v1/trust-center/access-requests/${id}`);
  expect(res.status).toBe(200);
  expect(res.body.data.status).toBe('pending');
});
