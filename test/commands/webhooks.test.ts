/**
 * `webhooks` and `secrets` against a scripted API: the once-only secret goes into the set and
 * only its hint is printed; a hostile answer leaves the set untouched; the service's errors are
 * shown verbatim; refused input lists every problem and exits 2.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readSecretSet, secretSetPath } from '../../src/service/secret-set.js';
import { tempDir } from '../helpers/temp-dir.js';
import { apiError, delivery, ok, raw, startHostile, webhook, type Handler, type HostileServer } from '../service/hostile-server.js';
import { runService } from '../service/command-harness.js';

const KEY = 'hr_live_key_abcdef0123456789';
const SECRET = 'whsec_0123456789abcdef0123456789abcdefWXYZ';
let server: HostileServer | undefined;
let dir: string;
let removeDir: () => void;
beforeEach(() => ({ dir, remove: removeDir } = tempDir('hookrelay-webhooks-')));
afterEach(async () => {
  await server?.close();
  server = undefined;
  removeDir();
});

async function serve(route: (url: URL, method: string, body: string) => Handler) {
  const bodies: string[] = [];
  server = await startHostile((_i, req) => (rq, res, body) => {
    bodies.push(body);
    route(new URL(req.url ?? '/', 'http://x'), req.method ?? 'GET', body)(rq, res, body);
  });
  return { env: { HOOKRELAY_API_URL: server.baseUrl, HOOKRELAY_API_KEY: KEY }, bodies };
}

const created = (id: string, secret: string | null) => ok({ webhook: webhook(id, { signing: { enabled: secret !== null, secretHint: secret === null ? null : 'whsec_…WXYZ' } }), ...(secret === null ? {} : { signingSecret: secret }) }, {}, {});
const createArgs = () => ['webhooks', 'create', '--name', 'orders', '--endpoint', 'https://example.com/hook', '--trigger', 'sod.violation_detected', '--signing', '--db', join(dir, 'hookrelay.db')];

it('create --signing keeps the secret in the set and prints only its hint; recreate keeps both', async () => {
  const { env, bodies } = await serve((url, method) => (method === 'POST' ? created(bodies.length === 1 ? 'wh-1' : 'wh-2', bodies.length === 1 ? SECRET : `${SECRET}2`) : ok(webhook('x'))));
  const first = await runService([...createArgs(), '--header', 'X-Team: payments', '--max-attempts', '3'], env);
  expect(first.code, first.err).toBe(0);
  expect(first.out).toMatch(/created wh-1 {2}active/);
  expect(first.err).toContain(`signing secret whsec_…WXYZ kept in ${secretSetPath(dir)}`);
  expect(first.out + first.err).not.toContain(SECRET);
  const sent = JSON.parse(bodies[0]!);
  expect(sent).toMatchObject({ name: 'orders', triggers: ['sod.violation_detected'], signingEnabled: true, customHeaders: [{ name: 'X-Team', value: 'payments' }], retryPolicy: { maxAttempts: 3, backoff: 'exponential' } });
  const second = await runService(createArgs(), env);
  expect(second.code, second.err).toBe(0);
  expect(readSecretSet(dir).map((e) => [e.secret, e.webhookId])).toEqual([[SECRET, 'wh-1'], [`${SECRET}2`, 'wh-2']]);
  expect(readSecretSet(dir)[0]!.origin).toMatch(/^webhook wh-1 created \d{4}-/);

  const list = await runService(['secrets', 'list', '--db', join(dir, 'hookrelay.db')]);
  expect(list.out).toMatch(/1 {2}whsec_…WXYZ {3}webhook wh-1 created/);
  expect(list.out).not.toContain(SECRET);
  const removed = await runService(['secrets', 'remove', 'wh-1', '--db', join(dir, 'hookrelay.db')]);
  expect(removed.code).toBe(0);
  expect(readSecretSet(dir).map((e) => e.webhookId)).toEqual(['wh-2']);
  expect((await runService(['secrets', 'remove', 'wh-9', '--db', join(dir, 'hookrelay.db')])).code).toBe(2);
});

it('--print-secret shows it once; --json prints the data with the secret as its hint', async () => {
  const { env } = await serve(() => created('wh-1', SECRET));
  const printed = await runService([...createArgs(), '--print-secret'], env);
  expect(printed.err.split(SECRET)).toHaveLength(2);
  const asJson = await runService([...createArgs(), '--json'], env);
  const data = JSON.parse(asJson.out);
  expect(data.signingSecret).toBe('whsec_…WXYZ');
  expect(data.webhook.id).toBe('wh-1');
  expect(asJson.out).not.toContain(SECRET);
});

// Exit codes (docs/exit-codes.md): an answer that is not the API's is "could not run" (3); a value the service refused as given is usage (2).
it.each<[string, Handler, number]>([
  ['malformed JSON', raw(201, '{"success":true,"data":{"webhook":', { 'content-type': 'application/json' }), 3],
  ['an HTML page', raw(502, '<html><head><title>Bad Gateway</title></head></html>', { 'content-type': 'text/html' }), 3],
  ['no signingSecret', created('wh-1', null), 3],
  ['a webhook without id', ok({ webhook: { name: 'x', status: 'active' }, signingSecret: SECRET }), 3],
  ['a 422', apiError(422, 'VALIDATION_ERROR', 'triggers has an unknown trigger', [{ field: 'triggers', message: 'unknown' }]), 2],
])('a create answered with %s writes nothing to the secret set and exits %i with a clear message', async (_name, handler, code) => {
  const { env } = await serve(() => handler);
  const ran = await runService(createArgs(), env);
  expect(ran.code).toBe(code);
  expect(ran.err).toMatch(/^error: /m);
  expect(ran.err).toMatch(/malformed JSON|HTML page|no signingSecret|"id" must be|422 VALIDATION_ERROR: triggers has an unknown trigger \(field: triggers\)/);
  expect(existsSync(secretSetPath(dir))).toBe(false);
  expect(ran.out + ran.err).not.toContain(KEY);
});

it('a damaged secret set is found before the service is asked for a secret', async () => {
  const { env } = await serve(() => created('wh-1', SECRET));
  const { writeFileSync } = await import('node:fs');
  writeFileSync(secretSetPath(dir), 'not json');
  const ran = await runService(createArgs(), env);
  expect(ran.code).toBe(3);
  expect(ran.err).toMatch(/secrets\.json is not valid JSON/);
  expect(server!.requests).toHaveLength(0);
  expect(readFileSync(secretSetPath(dir), 'utf8')).toBe('not json');
});

it('refused input: every problem at once, exit 2, nothing sent', async () => {
  const { env } = await serve(() => ok([]));
  const ran = await runService(['webhooks', 'create', '--header', 'no colon', '--print-secret'], env);
  expect(ran.code).toBe(2);
  expect(ran.err).toMatch(/missing --name/);
  expect(ran.err).toMatch(/missing --endpoint/);
  expect(ran.err).toMatch(/missing --trigger/);
  expect(ran.err).toMatch(/--print-secret needs --signing/);
  expect(ran.err).toMatch(/--header "no colon": must be 'Name: value'/);
  const noUrl = await runService(['webhooks', 'list'], {});
  expect(noUrl.code).toBe(2);
  expect(noUrl.err).toMatch(/no API address.*\n.*no API key/);
  expect(server!.requests).toHaveLength(0);
});

it('a key given as a flag gets the process-list warning, and never appears', async () => {
  const { env } = await serve(() => ok([webhook('wh-1')]));
  const ran = await runService(['webhooks', 'list', '--api-url', env.HOOKRELAY_API_URL, '--api-key', KEY]);
  expect(ran.code).toBe(0);
  expect(ran.err).toMatch(/^warning: --api-key is visible to every user of this machine in the process list/);
  expect(ran.out).toMatch(/wh-1 {2}active/);
  expect(ran.out + ran.err).not.toContain(KEY);
  expect(server!.requests[0]!.authorization).toBe(`Bearer ${KEY}`);
});

it('update sends only the fields given, partial policies included; enable and disable PATCH the status', async () => {
  const { env, bodies } = await serve((_url, method) => (method === 'PATCH' ? ok(webhook('wh-1')) : ok(webhook('wh-1'))));
  expect((await runService(['webhooks', 'update', 'wh-1', '--name', 'n2', '--max-attempts', '4', '--failure-handling', '{"autoDisableAfter":5}'], env)).code).toBe(0);
  expect(JSON.parse(bodies[0]!)).toEqual({ name: 'n2', retryPolicy: { maxAttempts: 4 }, failureHandling: { autoDisableAfter: 5 } });
  expect((await runService(['webhooks', 'disable', 'wh-1'], env)).code).toBe(0);
  expect((await runService(['webhooks', 'enable', 'wh-1'], env)).code).toBe(0);
  expect(bodies.slice(1).map((b) => JSON.parse(b))).toEqual([{ status: 'disabled' }, { status: 'active' }]);
  const bad = await runService(['webhooks', 'update', 'wh-1', '--max-attempts', '99'], env);
  expect(bad.code).toBe(2);
  expect(bad.err).toMatch(/retryPolicy.maxAttempts/);
  expect(bodies).toHaveLength(3);
});

it('deliveries prints each with every attempt; --json prints exactly the API\'s data', async () => {
  // d-2's second attempt has no answer yet: not "ok".
  const items = [delivery('d-2', { status: 'failed', attempts: [{ attemptNumber: 1, startedAt: 't1', responseStatus: 503, failureClass: 'http_5xx' }, { attemptNumber: 2, startedAt: 't2', responseStatus: null, failureClass: null }], futureField: 1 }), delivery('d-1')];
  const { env } = await serve(() => ok(items, { cursor: { nextCursor: null, hasMore: false, limit: 100 } }));
  const text = await runService(['webhooks', 'deliveries', 'wh-1', '--status', 'failed'], env);
  expect(text.out).toMatch(/d-2 {2}sod.violation_detected {2}failed {2}attempts 1\n {4}#1 {2}t1 {2}503 {2}http_5xx\n {4}#2 {2}t2 {2}--- {2}in progress\n/);
  expect(text.out).not.toContain('d-1');
  const asJson = await runService(['webhooks', 'deliveries', 'wh-1', '--json'], env);
  expect(JSON.parse(asJson.out)).toEqual(items);
});

it('triggers --live shows tier and entitled; without an API address it is marked as the fallback', async () => {
  const { env } = await serve(() => ok([{ trigger: 'sod.violation_detected', description: 'a finding', tier: 'core', status: 'active', entitled: true }, { trigger: 'trustcenter.access_requested', description: 'waiting', tier: 'premium', status: 'active', entitled: false }]));
  const live = await runService(['triggers', '--live'], env);
  expect(live.out).toMatch(/sod.violation_detected +core +yes +a finding/);
  expect(live.out).toMatch(/trustcenter.access_requested +premium +no +waiting/);
  const fallback = await runService(['triggers', '--live']);
  expect(fallback.out).toMatch(/FALLBACK: no --api-url/);
});
