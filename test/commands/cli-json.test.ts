/**
 * One JSON contract (issue 42, item 1): every command docs/cli-json.md documents is run here as a
 * process with `--json`, and its real stdout is validated against the schema the page gives for it
 * (read from the page, test/helpers/cli-json-schemas.ts). Each also gets a usage error (exit 2, the
 * error object last on stderr), and a command that cannot reach its server exits 3 with one.
 * Commands that share no state run at once, and so do the four groups (the webhook-changing runs go
 * one after the other inside theirs).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/emulator/delivery-engine.js';
import { TRIGGER_CATALOGUE } from '../../src/core/triggers.js';
import { addToSecretSet } from '../../src/service/secret-set.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { startEmulator, type Harness } from '../emulate/helpers.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { CLI_JSON_DOC, compileDocSchemas, problemsOf, schemasOfDoc } from '../helpers/cli-json-schemas.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget, type Target } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';

type Ran = Awaited<ReturnType<typeof runCli>>;
const ERROR = 'The error object on stderr';
const ENVELOPE = 'The validation envelope on stderr';
const FOLLOW = 'hookrelay webhooks deliveries ID --follow --json';
const APP = 'http://127.0.0.1:3000/hooks';

let validators: Map<string, ValidateFunction>;
let h: Harness;
let target: Target;
let dir: string;
let db: string;
/** A store of its own for the commands that change it (retry, retarget, replay, backup, secrets remove). */
let writeDir: string;
let writeDb: string;
let env: Record<string, string>;
let webhookId: string;
let serviceDeliveryId: string;
let created: Ran;
const cleanups: Array<() => unknown> = [];

/**
 * Two stored deliveries (one received twice, one relayed with an answer kept), a refused attempt
 * with its request, a bridge subscriber; with `dead`, evt-b's relay given up after a 503.
 */
async function seedStore(file: string, dead = false): Promise<void> {
  const store = await createSqliteStore(file, { outbox: { to: APP, routes: [] } });
  const a = makeDelivery({ id: 'evt-a', trigger: 'vendor.rating_dropped', receivedAt: 1_763_719_200_000 });
  const b = makeDelivery({ id: 'evt-b', receivedAt: 1_763_719_260_000 });
  for (const d of [a, b]) await store.accept(d, attemptFor(d, { receivedAt: d.receivedAt }));
  await store.accept(a, attemptFor(a, { receivedAt: 1_763_719_270_000, attemptHeader: 2 }));
  await store.recordAttempt(
    attemptFor(null, { outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', receivedAt: 1_763_719_300_000, request: { headers: [['content-type', 'application/json']], body: Buffer.from('{"id":"x"}') } }),
  );
  const seq = (await store.getDelivery('evt-a'))!.seq;
  await store.recordRelay({
    deliverySeq: seq, startedAt: 1_763_719_201_000, finishedAt: 1_763_719_201_012, status: 204, error: null, replay: false, target: APP, try: 1, next: { state: 'done' },
    answer: { headers: [['content-length', '0']], headerLines: 1, body: Buffer.alloc(0), bodyBytes: 0, complete: true },
  });
  await store.ackBridge('laptop', seq, 1_763_719_400_000);
  if (dead) {
    const seqB = (await store.getDelivery('evt-b'))!.seq;
    await store.recordRelay({ deliverySeq: seqB, startedAt: 1_763_719_261_000, finishedAt: 1_763_719_261_020, status: 503, error: null, replay: false, target: APP, try: 1, next: { state: 'dead' } });
  }
  await store.close();
}

const closed = (id: string) => (e: EngineEvent) => e.type === 'attempt' && e.delivery.id === id && (e.delivery.status === 'succeeded' || e.delivery.status === 'failed');

beforeAll(async () => {
  validators = compileDocSchemas();
  const temp = tempDir('hookrelay-cli-json-');
  cleanups.push(temp.remove);
  dir = temp.dir;
  db = join(dir, 'hookrelay.db');
  await seedStore(db);
  writeDir = join(dir, 'changed');
  mkdirSync(writeDir);
  writeDb = join(writeDir, 'hookrelay.db');
  await seedStore(writeDb, true);
  addToSecretSet(writeDir, { secret: 'whsec_0123456789abcdef0123456789abcdef', webhookId: null, origin: 'seeded by the test' }, 1_763_719_000_000);
  writeFileSync(join(dir, 'capture.txt'), 'x-service-signature: t=1,v1=00\nx-service-delivery: d\n\n{"id":"d"}');
  h = await startEmulator({ timeScale: 0.001 });
  cleanups.push(() => h.close());
  target = await startTarget(() => 204);
  cleanups.push(() => target.close());
  env = { HOOKRELAY_API_URL: h.app.baseUrl, HOOKRELAY_API_KEY: h.keys.aFull };
  // One attempt to a port nothing listens on: the delivery fails at once, and reconcile finds it missed.
  created = await runCli(['webhooks', 'create', '--name', 'contract', '--endpoint', 'http://127.0.0.1:9/x', '--trigger', 'sod.violation_detected', '--max-attempts', '1', '--signing', '--db', db, '--json'], { env });
  if (created.code !== 0) throw new Error(created.stderr);
  webhookId = (JSON.parse(created.stdout) as { webhook: { id: string } }).webhook.id;
  const fired = await h.api('POST', '/v1/_emulator/events', { body: { type: 'sod.violation_detected', count: 1 } });
  serviceDeliveryId = fired.body.data.deliveries[0].deliveryId as string;
  await h.waitFor(closed(serviceDeliveryId));
}, 120_000);

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Validates `value` against the documented schema `name`; a failed validation names the field. */
function expectValid(name: string, value: unknown): void {
  const validate = validators.get(name);
  expect(validate, `docs/cli-json.md documents "${name}"`).toBeDefined();
  expect(validate!(value), `${name}:\n${problemsOf(validate!)}\n${JSON.stringify(value).slice(0, 400)}`).toBe(true);
}

/**
 * Issue 42's common names: each record has the new name and its deprecated one, holding the same
 * value; across the records at least one value is not null (so null = null proves nothing alone).
 */
function expectSameValues(label: string, records: unknown[], pairs: Array<[string, string]>): void {
  expect(records.length, `${label}: records to compare`).toBeGreaterThan(0);
  for (const [name, old] of pairs) {
    for (const record of records as Array<Record<string, unknown>>) {
      expect(record, `${label}: ${name}`).toHaveProperty(name);
      expect(record, `${label}: ${old}`).toHaveProperty(old);
      expect(record[name], `${label}: ${name} = ${old}`).toStrictEqual(record[old]);
    }
    expect((records as Array<Record<string, unknown>>).some((r) => r[name] !== null), `${label}: some ${name} is not null`).toBe(true);
  }
}

const ndjson = (stdout: string): unknown[] => stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown);

/** The last JSON document on stderr: a line of its own, or a pretty-printed one ending it. */
function lastJsonDocument(stderr: string): unknown {
  const lines = stderr.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.startsWith('{')) continue;
    try {
      return JSON.parse(lines.slice(i).join('\n')) as unknown;
    } catch {
      /* not where the document starts */
    }
  }
  throw new Error(`no JSON document ends stderr:\n${stderr.slice(-600)}`);
}

/**
 * A failure: nothing on stdout, and stderr ends with the error object (its code and exit code), or,
 * for a refused retry policy or webhook field, the service's 422 envelope (exit 2).
 */
function expectErrorObject(ran: Ran, code: 'usage' | 'could_not_run', exitCode: number, label: string): void {
  expect(ran.code, `${label}: ${ran.stderr}`).toBe(exitCode);
  expect(ran.stdout, label).toBe('');
  const document = lastJsonDocument(ran.stderr) as { error: unknown };
  if (typeof document.error === 'object' && document.error !== null) {
    expectValid(ERROR, document);
    expect(document.error, label).toMatchObject({ code, exitCode });
  } else {
    expect(exitCode, `${label}: only a usage error answers with the 422 envelope`).toBe(2);
    expectValid(ENVELOPE, document);
  }
}

/** For each documented command: its run, the exit code its run gives, whether stdout is NDJSON, and a usage error. */
interface Case {
  args: () => string[];
  exit: number;
  ndjson?: boolean;
  usage: () => string[];
}

const missingDb = () => join(dir, 'none', 'hookrelay.db');

const storeCases: Record<string, Case> = {
  'hookrelay status --json': { args: () => ['status', '--db', db, '--json'], exit: 0, usage: () => ['status', '--db', missingDb(), '--json'] },
  'hookrelay db stats --json': { args: () => ['db', 'stats', '--db', db, '--json'], exit: 0, usage: () => ['db', 'stats', '--db', missingDb(), '--json'] },
  'hookrelay db prune --json': { args: () => ['db', 'prune', '--db', db, '--dry-run', '--json'], exit: 0, usage: () => ['db', 'prune', '--db', db, '--older-than', 'soon', '--json'] },
  'hookrelay events list --json': { args: () => ['events', 'list', '--db', db, '--json'], exit: 0, usage: () => ['events', 'list', '--db', db, '--limit', '0', '--json'] },
  'hookrelay events list --all': { args: () => ['events', 'list', '--db', db, '--all'], exit: 0, ndjson: true, usage: () => ['events', 'list', '--db', db, '--all', '--limit', '5', '--json'] },
  'hookrelay events list --status rejected --json': { args: () => ['events', 'list', '--db', db, '--status', 'rejected', '--json'], exit: 0, usage: () => ['events', 'list', '--db', db, '--status', 'lost', '--json'] },
  'hookrelay events export --json': { args: () => ['events', 'export', '--db', db, '--json'], exit: 0, ndjson: true, usage: () => ['events', 'export', '--format', 'har', '--db', db, '--json'] },
  'hookrelay events export ID --attempt N --json': { args: () => ['events', 'export', 'evt-a', '--attempt', '2', '--db', db, '--json'], exit: 0, usage: () => ['events', 'export', '--attempt', '1', '--db', db, '--json'] },
  'hookrelay events wait --json': { args: () => ['events', 'wait', '--since', '2025-11-01T00:00:00Z', '--timeout', '10s', '--db', db, '--json'], exit: 0, usage: () => ['events', 'wait', '--timeout', 'never', '--db', db, '--json'] },
  'hookrelay events show ID --json': { args: () => ['events', 'show', 'evt-a', '--db', db, '--json'], exit: 0, usage: () => ['events', 'show', 'evt-a', '--db', missingDb(), '--json'] },
  // The seeded evt-a came again after its 200, with the same signature: two rules fail, exit 1.
  'hookrelay check --json': { args: () => ['check', '--db', db, '--json'], exit: 1, usage: () => ['check', '--db', db, '--max-attempts', '99', '--json'] },
  'hookrelay verify --json': { args: () => ['verify', join(dir, 'capture.txt'), '--secret', 'whsec_0123456789abcdef', '--json'], exit: 1, usage: () => ['verify', join(dir, 'capture.txt'), '--at', 'noon', '--json'] },
  'hookrelay schedule --json': { args: () => ['schedule', '--json'], exit: 0, usage: () => ['schedule', '--max-attempts', '99', '--json'] },
  'hookrelay schema --json': { args: () => ['schema', '--json'], exit: 0, usage: () => ['schema', '--format', 'yaml', '--json'] },
  'hookrelay schema TRIGGER --json': { args: () => ['schema', 'sod.violation_detected', '--json'], exit: 0, usage: () => ['schema', 'sod.violation', '--json'] },
  'hookrelay secrets list --json': { args: () => ['secrets', 'list', '--db', db, '--json'], exit: 0, usage: () => ['secrets', 'list', '--config', join(dir, 'none.json'), '--json'] },
  'hookrelay triggers --json': { args: () => ['triggers', '--json'], exit: 0, usage: () => ['triggers', '--tier', 'gold', '--json'] },
  'hookrelay send --json': { args: () => ['send', '--to', target.url, '--secret', 'whsec_0123456789abcdef', '--json'], exit: 0, usage: () => ['send', '--to', target.url, '--max-attempts', '99', '--json'] },
  'hookrelay bridge token --json': { args: () => ['bridge', 'token', '--name', 'laptop', '--json'], exit: 0, usage: () => ['bridge', 'token', '--name', 'bad name', '--json'] },
};

const SECRET = 'whsec_0123456789abcdef';

/** They change the store of writeDir: one after the other, in this order (retry makes the job retarget moves; replay makes the job --jobs lists). */
const storeWriteCases: Record<string, Case> = {
  'hookrelay events retry ID --json': { args: () => ['events', 'retry', 'evt-b', '--db', writeDb, '--json'], exit: 0, usage: () => ['events', 'retry', 'evt-b', '--db', missingDb(), '--json'] },
  'hookrelay events retarget --json': { args: () => ['events', 'retarget', '--db', writeDb, '--json'], exit: 0, usage: () => ['events', 'retarget', '--from', APP, '--db', writeDb, '--json'] },
  'hookrelay events retarget --from URL --to URL --json': { args: () => ['events', 'retarget', '--from', APP, '--to', 'http://127.0.0.1:9/moved', '--db', writeDb, '--json'], exit: 0, usage: () => ['events', 'retarget', '--from', APP, '--to', 'ftp://x', '--db', writeDb, '--json'] },
  'hookrelay events replay ID --json': { args: () => ['events', 'replay', 'evt-a', '--to', target.url, '--secret', SECRET, '--db', writeDb, '--json'], exit: 0, usage: () => ['events', 'replay', 'evt-a', '--dry-run', '--db', writeDb, '--json'] },
  'hookrelay events replay --all --json': { args: () => ['events', 'replay', '--all', '--to', target.url, '--secret', SECRET, '--db', writeDb, '--json'], exit: 0, ndjson: true, usage: () => ['events', 'replay', '--all', '--concurrency', '0', '--db', writeDb, '--json'] },
  'hookrelay events replay --all --dry-run --json': { args: () => ['events', 'replay', '--all', '--dry-run', '--db', writeDb, '--json'], exit: 0, usage: () => ['events', 'replay', '--since', 'whenever', '--dry-run', '--db', writeDb, '--json'] },
  'hookrelay events replay --jobs --json': { args: () => ['events', 'replay', '--jobs', '--db', writeDb, '--json'], exit: 0, usage: () => ['events', 'replay', '--jobs', '--config', join(dir, 'none.json'), '--json'] },
  'hookrelay db backup FILE --json': { args: () => ['db', 'backup', join(writeDir, 'backup.db'), '--db', writeDb, '--json'], exit: 0, usage: () => ['db', 'backup', writeDb, '--db', writeDb, '--json'] },
  'hookrelay secrets remove SELECTOR --json': { args: () => ['secrets', 'remove', '1', '--db', writeDb, '--json'], exit: 0, usage: () => ['secrets', 'remove', '99', '--db', writeDb, '--json'] },
};

/** Read-only against the service: they run at once. */
const serviceReadCases: Record<string, Case> = {
  'hookrelay triggers --live --json': { args: () => ['triggers', '--live', '--json'], exit: 0, usage: () => ['triggers', '--live', '--api-url', 'not a url', '--json'] },
  'hookrelay webhooks list --json': { args: () => ['webhooks', 'list', '--json'], exit: 0, usage: () => ['webhooks', 'list', '--api-url', 'not a url', '--json'] },
  'hookrelay emulate keys --json': { args: () => ['emulate', 'keys', '--db', h.dbPath, '--json'], exit: 0, usage: () => ['emulate', 'keys', '--db', missingDb(), '--json'] },
  'hookrelay webhooks show ID --json': { args: () => ['webhooks', 'show', webhookId, '--json'], exit: 0, usage: () => ['webhooks', 'show', webhookId, '--api-url', 'not a url', '--json'] },
  'hookrelay webhooks deliveries ID --json': { args: () => ['webhooks', 'deliveries', webhookId, '--json'], exit: 0, usage: () => ['webhooks', 'deliveries', webhookId, '--limit', '0', '--json'] },
  // The failed delivery never reached this store: a gap, exit 1.
  'hookrelay reconcile --json': { args: () => ['reconcile', '--webhook', webhookId, '--db', db, '--json'], exit: 1, usage: () => ['reconcile', '--webhook', webhookId, '--db', db, '--since', 'yesterday-ish', '--json'] },
};

/** They change the webhook (or fire a delivery to it): one after the other, in this order, after the reads. */
const serviceWriteCases: Record<string, Case> = {
  'hookrelay webhooks update ID --json': { args: () => ['webhooks', 'update', webhookId, '--name', 'renamed', '--json'], exit: 0, usage: () => ['webhooks', 'update', webhookId, '--max-attempts', '99', '--json'] },
  'hookrelay webhooks disable ID --json': { args: () => ['webhooks', 'disable', webhookId, '--json'], exit: 0, usage: () => ['webhooks', 'disable', webhookId, '--api-url', 'not a url', '--json'] },
  'hookrelay webhooks enable ID --json': { args: () => ['webhooks', 'enable', webhookId, '--json'], exit: 0, usage: () => ['webhooks', 'enable', webhookId, '--api-url', 'not a url', '--json'] },
  'hookrelay webhooks replay ID DELIVERY --json': { args: () => ['webhooks', 'replay', webhookId, serviceDeliveryId, '--json'], exit: 0, usage: () => ['webhooks', 'replay', webhookId, serviceDeliveryId, '--api-url', 'not a url', '--json'] },
  'hookrelay emulate fire TRIGGER --json': { args: () => ['emulate', 'fire', 'sod.violation_detected', '--json'], exit: 0, usage: () => ['emulate', 'fire', '--trigger', 'nope.unknown', '--json'] },
  'hookrelay webhooks delete ID --json': { args: () => ['webhooks', 'delete', webhookId, '--json'], exit: 0, usage: () => ['webhooks', 'delete', webhookId, '--api-url', 'not a url', '--json'] },
};

/** Run in beforeAll (its output is `created`) and as NDJSON by a process stopped after its first line. */
const specialCases: Record<string, Pick<Case, 'usage'>> = {
  'hookrelay webhooks create --json': { usage: () => ['webhooks', 'create', '--name', 'w', '--endpoint', 'http://127.0.0.1:9/x', '--trigger', 'sod.violation_detected', '--max-attempts', '99', '--json'] },
  [FOLLOW]: { usage: () => ['webhooks', 'deliveries', webhookId, '--follow', '--interval', '0', '--json'] },
};

const allCases = { ...storeCases, ...storeWriteCases, ...serviceReadCases, ...serviceWriteCases, ...specialCases };

function expectOutput(name: string, c: Case, ran: Ran): void {
  expect(ran.code, `${name}: ${ran.stderr}`).toBe(c.exit);
  if (c.ndjson) {
    const lines = ndjson(ran.stdout);
    expect(lines.length, name).toBeGreaterThan(0);
    for (const line of lines) expectValid(name, line);
  } else {
    expectValid(name, JSON.parse(ran.stdout));
  }
}

/** The first NDJSON line of `webhooks deliveries --follow --json`, then Ctrl-C (seen at its next poll, a second later). */
async function firstFollowLine(): Promise<string> {
  const child = spawn(process.execPath, [...cliEntry(), 'webhooks', 'deliveries', webhookId, '--follow', '--interval', '1', '--json'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = once(child, 'exit');
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.on('exit', () => reject(new Error(`--follow ended before a line: ${err}`)));
  });
  child.kill('SIGINT');
  await exited;
  return line;
}

describe('docs/cli-json.md against the real output', () => {
  it('documents exactly the commands this test runs, each with a schema that compiles', () => {
    const documented = [...validators.keys()].filter((name) => name !== ERROR && name !== ENVELOPE).sort();
    expect(documented).toEqual(Object.keys(allCases).sort());
  });

  it('a schema that does not fit is caught: a field renamed in an output fails its schema', () => {
    const page = schemasOfDoc(readFileSync(CLI_JSON_DOC, 'utf8'));
    expect(page.get('hookrelay db prune --json')).toMatchObject({ additionalProperties: false });
    const validate = validators.get('hookrelay db prune --json')!;
    expect(validate({ before: '2026-10-29T22:08:46.121Z', deliveries: 0, attempts: 1, relayAttempts: 0, keptPending: 2, dryRun: true })).toBe(true);
    expect(validate({ before: '2026-10-29T22:08:46.121Z', deliveries: 0, attempts: 1, relayTries: 0, keptPending: 2, dryRun: true })).toBe(false);
  });

  it.concurrent('store commands: each output validates, with the exit code of the table', { timeout: 120_000 }, async () => {
    const entries = Object.entries(storeCases);
    const runs = await Promise.all(entries.map(([, c]) => runCli(c.args(), { env })));
    entries.forEach(([name, c], i) => expectOutput(name, c, runs[i]!));
    // The seeds reach the outputs (a schema of empty arrays would prove nothing).
    const shown = JSON.parse(runs[entries.findIndex(([n]) => n === 'hookrelay events show ID --json')]!.stdout) as { attempts: unknown[]; relay: { attempts: Array<{ answer: unknown }> } };
    expect(shown.attempts).toHaveLength(2);
    expect(shown.relay.attempts[0]!.answer).not.toBeNull();
    const secrets = JSON.parse(runs[entries.findIndex(([n]) => n === 'hookrelay secrets list --json')]!.stdout) as unknown[];
    expect(secrets).toHaveLength(1);
    const refused = JSON.parse(runs[entries.findIndex(([n]) => n === 'hookrelay events list --status rejected --json')]!.stdout) as Array<{ outcome: string }>;
    expect(refused.map((a) => a.outcome)).toEqual(['rejected']);

    // The common names hold the deprecated names' values, wherever the record is printed.
    const out = (name: string) => JSON.parse(runs[entries.findIndex(([n]) => n === name)]!.stdout) as Record<string, unknown>;
    const stored = shown as unknown as { delivery: { body: string; bodyBase64: string }; attempts: unknown[]; relay: { jobs: unknown[]; attempts: Array<Record<string, unknown>> } };
    const attemptPairs: Array<[string, string]> = [['responseStatus', 'status'], ['attemptNumber', 'attemptHeader']];
    expectSameValues('events show: stored attempts', stored.attempts, attemptPairs);
    expectSameValues('events list --status rejected', refused, attemptPairs);
    expectSameValues('events export --attempt', [out('hookrelay events export ID --attempt N --json')], attemptPairs);
    expectSameValues('events show: relay tries', stored.relay.attempts, [['responseStatus', 'status']]);
    expect(stored.relay.attempts.map((r) => r.deliveryId)).toEqual(['evt-a']);
    expectSameValues('events show: relay jobs', stored.relay.jobs, [['lastResponseStatus', 'lastStatus']]);
    expect(Buffer.from(stored.delivery.bodyBase64, 'base64').toString('utf8')).toBe(stored.delivery.body);
    const listed = JSON.parse(runs[entries.findIndex(([n]) => n === 'hookrelay events list --json')]!.stdout) as Array<{ body: string; bodyBase64: string }>;
    for (const d of listed) expect(Buffer.from(d.bodyBase64, 'base64').toString('utf8')).toBe(d.body);

    const checked = out('hookrelay check --json') as { deliveries: Array<{ timeline: unknown[]; rules: Array<{ findings: unknown[] }> }>; suspension: unknown };
    expectSameValues("check: a delivery's verdict", checked.deliveries, [['verdict', 'status']]);
    expect(checked.deliveries.map((d) => (d as unknown as { verdict: string }).verdict)).toContain('fail');
    expectSameValues('check: rule verdicts', [...checked.deliveries.flatMap((d) => d.rules), checked.suspension], [['verdict', 'status']]);
    expectSameValues('check: findings', checked.deliveries.flatMap((d) => d.rules.flatMap((r) => r.findings)), [['position', 'attempt']]);
    expectSameValues('check: timeline', checked.deliveries.flatMap((d) => d.timeline), [['responseStatus', 'status'], ['attemptNumber', 'attemptHeader']]);
    expectSameValues('verify', [(out('hookrelay verify --json') as { verdict: unknown }).verdict], [['responseStatus', 'status']]);
  });

  it.concurrent('verify of a capture whose signature an export redacted: no verdict (nulls), exit 3, and it validates', { timeout: 60_000 }, async () => {
    const sent = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const headers = Object.entries(sent.headers).map(([name, value]) => `${name}: ${name === 'x-service-signature' ? value.replace(/v1=[0-9a-f]+/, 'v1=redacted') : value}`);
    writeFileSync(join(dir, 'redacted-capture.txt'), `${headers.join('\n')}\n\n${sent.body.toString('utf8')}`);
    const ran = await runCli(['verify', join(dir, 'redacted-capture.txt'), '--secret', TEST_SECRET, '--json']);
    expect(ran.code, ran.stderr).toBe(3);
    const verdict = JSON.parse(ran.stdout) as { verdict: Record<string, unknown> };
    expect(verdict.verdict).toMatchObject({ accepted: null, status: null, responseStatus: null });
    expectValid('hookrelay verify --json', verdict);
  });

  it.concurrent('store-changing commands: each output validates, in order, and what they did shows in it', { timeout: 120_000 }, async () => {
    const runs: Record<string, Ran> = {};
    for (const [name, c] of Object.entries(storeWriteCases)) {
      runs[name] = await runCli(c.args(), { env });
      expectOutput(name, c, runs[name]);
    }
    const line = (name: string) => JSON.parse(runs[name]!.stdout) as Record<string, unknown>;
    expect(line('hookrelay events retry ID --json')).toMatchObject({ deliveryId: 'evt-b', queued: true, job: { state: 'pending' }, reason: null });
    expect(line('hookrelay events retarget --from URL --to URL --json')).toEqual({ from: APP, to: 'http://127.0.0.1:9/moved', moved: 1 });
    expect(line('hookrelay events replay ID --json')).toMatchObject({ deliveryId: 'evt-a', ok: true, relayTry: { replay: true, status: 204 } });
    const bulk = ndjson(runs['hookrelay events replay --all --json']!.stdout) as Array<Record<string, unknown>>;
    expect(bulk.slice(0, -1).map((l) => l.deliveryId).sort()).toEqual(['evt-a', 'evt-b']);
    expect(bulk.slice(0, -1).map((l) => l.earlierRun)).toEqual([false, false]);
    expect(bulk.at(-1)).toMatchObject({ total: 2, done: 2, handedOn: 2, failed: 0 });
    expect(JSON.parse(runs['hookrelay events replay --jobs --json']!.stdout)).toMatchObject([{ job: bulk.at(-1)!.job, state: 'finished' }]);

    // The common names hold the deprecated names' values: a relay job, a relay try, a replay job.
    const retried = line('hookrelay events retry ID --json') as { jobs: unknown[]; job: unknown };
    expectSameValues('events retry: relay jobs', retried.jobs, [['lastResponseStatus', 'lastStatus']]);
    expect(retried.jobs[0]).toMatchObject({ lastResponseStatus: 503 });
    const tries = [line('hookrelay events replay ID --json').relayTry, ...bulk.slice(0, -1).map((l) => l.relayTry)] as Array<Record<string, unknown>>;
    expectSameValues('events replay: relay tries', tries, [['responseStatus', 'status']]);
    expect(tries.map((t) => t.deliveryId).sort()).toEqual(['evt-a', 'evt-a', 'evt-b']);
    expectSameValues('events replay --all: the summary', [bulk.at(-1)], [['jobId', 'job']]);
    const listedJobs = JSON.parse(runs['hookrelay events replay --jobs --json']!.stdout) as Array<Record<string, unknown>>;
    expectSameValues('events replay --jobs', listedJobs, [['id', 'job'], ['done', 'sent']]);
    expect(listedJobs[0]).toMatchObject({ done: 2, handedOn: 2, failed: 0 });
    expect(runs['hookrelay secrets remove SELECTOR --json']!.stdout).not.toContain('0123456789abcdef0123');
  });

  it.concurrent('service commands: each output validates (reads at once, then the changes in order), and the secret is only a hint', { timeout: 120_000 }, async () => {
    expectValid('hookrelay webhooks create --json', JSON.parse(created.stdout));
    // A webhook that does not sign: the API leaves its secret out, the contract says null.
    const unsigned = await runCli(['webhooks', 'create', '--name', 'unsigned', '--endpoint', 'http://127.0.0.1:9/x', '--trigger', 'sod.violation_detected', '--db', db, '--json'], { env });
    expect(unsigned.code, unsigned.stderr).toBe(0);
    expectValid('hookrelay webhooks create --json', JSON.parse(unsigned.stdout));
    expect(JSON.parse(unsigned.stdout)).toMatchObject({ signingSecret: null });
    const reads = Object.entries(serviceReadCases);
    const [runs, follow] = await Promise.all([Promise.all(reads.map(([, c]) => runCli(c.args(), { env }))), firstFollowLine()]);
    reads.forEach(([name, c], i) => expectOutput(name, c, runs[i]!));
    expectValid(FOLLOW, JSON.parse(follow));
    // Each live entry has the data fields `triggers --json` gives its trigger (the emulator's catalogue is this build's).
    const live = JSON.parse(runs[reads.findIndex(([n]) => n === 'hookrelay triggers --live --json')]!.stdout) as Array<{ trigger: string; dataFields: unknown }>;
    const known = new Map(TRIGGER_CATALOGUE.map((e) => [e.trigger as string, e.dataFields]));
    expect(live.length).toBeGreaterThan(0);
    for (const e of live) expect(e.dataFields, e.trigger).toEqual(known.get(e.trigger) ?? null);
    expect(live.some((e) => Array.isArray(e.dataFields) && e.dataFields.length > 0)).toBe(true);
    for (const [name, c] of Object.entries(serviceWriteCases)) expectOutput(name, c, await runCli(c.args(), { env }));
    expect(created.stdout).not.toMatch(/whsec_[0-9a-f]{16,}/);
  });

  it.concurrent('a usage error in each documented command: exit 2, and the error object (or the 422 envelope) last on stderr', { timeout: 120_000 }, async () => {
    const entries = Object.entries(allCases);
    const runs = await Promise.all(entries.map(([, c]) => runCli(c.usage(), { env })));
    entries.forEach(([name], i) => expectErrorObject(runs[i]!, 'usage', 2, name));
  });

  it.concurrent('a server that cannot be reached: exit 3 and the error object, for the service and for a PostgreSQL store', { timeout: 120_000 }, async () => {
    const [api, postgres] = await Promise.all([
      runCli(['reconcile', '--webhook', '00000000-0000-4000-8000-000000000000', '--db', db, '--json'], { env: { ...env, HOOKRELAY_API_URL: 'http://127.0.0.1:1/v1' } }),
      runCli(['db', 'stats', '--store', 'postgres://hookrelay:hunter2-password@127.0.0.1:1/hookrelay', '--json']),
    ]);
    expectErrorObject(api, 'could_not_run', 3, 'reconcile against 127.0.0.1:1');
    expectErrorObject(postgres, 'could_not_run', 3, 'db stats on postgres://…:1');
    expect(postgres.stderr).not.toContain('hunter2');
  });
});
