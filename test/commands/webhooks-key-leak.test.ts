/**
 * The API key never appears in output, logs, the data folder or error messages (issue 17), even
 * when a hostile service echoes it back in every answer. Real processes, so the whole path is
 * covered; every byte they printed and every file they left is grepped.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { delivery, json, ok, raw, startHostile, webhook, type Handler, type HostileServer } from '../service/hostile-server.js';

const KEY = 'hr_live_SUPERSECRETKEY_9f8e7d6c5b4a';
let server: HostileServer;
let dir: string;
let removeDir: () => void;

/** Answers by path, each echoing the bearer token it was sent somewhere in the answer. */
function route(url: URL, method: string, auth: string): Handler {
  const echoed = auth.replace(/^Bearer /, '');
  const path = url.pathname;
  if (path === '/v1/webhooks' && method === 'POST') return ok({ webhook: webhook('wh-1', { name: `named ${echoed}` }), signingSecret: 'whsec_0123456789abcdef0123456789abcdef' });
  if (path === '/v1/webhooks' && method === 'GET') return ok([webhook('wh-1', { name: `hook ${echoed}`, disabledReason: echoed })]);
  if (path === '/v1/webhooks/wh-1') return ok(webhook('wh-1', { status: 'suspended', disabledReason: `because ${echoed}` }));
  if (path === '/v1/webhooks/wh-1/deliveries') return ok([delivery(`d-${echoed}`, { status: 'failed', attempts: [{ attemptNumber: 1, startedAt: echoed, responseStatus: 503, failureClass: 'http_5xx', errorMessage: echoed }] })], { cursor: { nextCursor: null, hasMore: false, limit: 100 } });
  if (path === '/v1/webhooks/html') return raw(502, `<html><head><title>proxy saw ${echoed}</title></head><body>${auth}</body></html>`, { 'content-type': 'text/html' });
  if (path === '/v1/webhooks/json') return raw(200, `{"broken": "${echoed}`, { 'content-type': 'application/json' });
  return json(401, { success: false, error: `invalid key ${echoed}`, code: 'UNAUTHORIZED', details: { field: echoed }, timestamp: 'now' });
}

beforeAll(async () => {
  ({ dir, remove: removeDir } = tempDir('hookrelay-keyleak-'));
  server = await startHostile((_i, req) => route(new URL(req.url ?? '/', 'http://x'), req.method ?? 'GET', String(req.headers.authorization ?? '')));
});
afterAll(async () => {
  await server.close();
  removeDir();
});

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const full = join(root, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

it('never prints, logs or stores the key, across every command and failure', { timeout: 120_000 }, async () => {
  const db = join(dir, 'data', 'hookrelay.db');
  const env = { HOOKRELAY_API_URL: server.baseUrl, HOOKRELAY_API_KEY: KEY };
  // An empty SQLite store for reconcile to read.
  const { openStore } = await import('../../src/store/open-store.js');
  await (await openStore({ kind: 'sqlite', path: db })).close();
  const runs = [
    ['webhooks', 'list'],
    ['webhooks', 'list', '--json'],
    ['webhooks', 'show', 'wh-1'],
    ['webhooks', 'show', 'unknown'],
    ['webhooks', 'show', 'unknown', '--json'],
    ['webhooks', 'show', 'html'],
    ['webhooks', 'show', 'json'],
    ['webhooks', 'create', '--name', 'n', '--endpoint', 'https://example.com', '--trigger', 'sod.violation_detected', '--signing', '--db', db],
    ['webhooks', 'deliveries', 'wh-1'],
    ['webhooks', 'delete', 'unknown'],
    ['reconcile', '--webhook', 'wh-1', '--db', db],
    ['reconcile', '--webhook', 'wh-1', '--db', db, '--json'],
    ['triggers', '--live'],
    ['secrets', 'list', '--db', db],
  ];
  const results = await Promise.all(runs.map((args) => runCli(args, { env })));
  const flagged = await runCli(['webhooks', 'show', 'unknown', '--api-key', KEY, '--api-url', server.baseUrl]);
  results.push(flagged);
  expect(flagged.stderr).toMatch(/visible to every user of this machine/);
  expect(server.requests.every((r) => r.authorization === `Bearer ${KEY}`)).toBe(true);
  // The echoes did arrive (so the scrubbing is what keeps the key out): [API key] stands in its place.
  const all = results.map((r) => r.stdout + r.stderr).join('\n');
  expect(all).toContain('[API key]');
  expect(all).toMatch(/invalid key \[API key\]/);
  expect(all).toMatch(/HTML page/);
  expect(all).toMatch(/malformed JSON/);
  for (const [i, r] of results.entries()) {
    expect(r.stdout, `stdout of ${runs[i]?.join(' ') ?? 'flagged'}`).not.toContain(KEY);
    expect(r.stderr, `stderr of ${runs[i]?.join(' ') ?? 'flagged'}`).not.toContain(KEY);
    expect(r.stdout + r.stderr).not.toContain('SUPERSECRETKEY');
  }
  const files = filesUnder(dir);
  expect(files.some((f) => f.endsWith('secrets.json'))).toBe(true);
  for (const f of files) expect(readFileSync(f).includes('SUPERSECRETKEY'), f).toBe(false);
});
