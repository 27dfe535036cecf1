/**
 * One node, two intakes: the same contract holds for `listen` (the HTTP receiver) and `connect` (the
 * bridge client), both built by src/app/build-node.ts and both configured from the same flags. A
 * delivery is stored once and handed on once, to its --route, trusting --forward-ca, with
 * --forward-header, signed with --forward-secret; a replay from the console, from `hookrelay events
 * replay` and from the node's own handle is that same hand-off, marked; an observer that throws
 * stops nothing; and /metrics has the same series on both.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { buildConnect } from '../../src/app/build-connect.js';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { verify } from '../../src/index.js';
import { createEventHub, type EventHub } from '../../src/runtime/event-hub.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { startHttpsApp, type HttpsApp } from '../helpers/https-app.js';
import { runCli } from '../helpers/run-cli.js';
import { signedRequest, TEST_SECRET, type SignedRequest } from '../helpers/signed-delivery.js';
import { startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';
import { makeSelfSigned } from '../tls/self-signed.js';

const FORWARD_SECRET = 'whsec_forward_contract_0123456789';
const BRIDGE_TOKEN = 'laptop-token-0123456789abcdefghijklmnop';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface NodeUnderTest {
  dbPath: string;
  store: DeliveryStore;
  consoleUrl: string;
  replay(id: string): Promise<{ ok: boolean; target?: string } | null>;
  /** Sends a delivery in through this node's intake; resolves once the node has stored it. */
  deliver(req: SignedRequest): Promise<void>;
}

interface Setup {
  dir: string;
  vendor: HttpsApp;
  /** The forward settings as a user gives them, as flags. */
  flags: Record<string, unknown>;
  /** The same settings as listen and the CLI read them from the environment. */
  env: NodeJS.ProcessEnv;
}

async function setUp(): Promise<Setup> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const pair = makeSelfSigned(dir);
  const vendor = await startHttpsApp(pair);
  cleanups.push(() => vendor.close());
  const app = await startTarget();
  cleanups.push(() => app.close());
  const route = `vendor.*=${vendor.url}`;
  return {
    dir,
    vendor,
    flags: { forwardTo: app.url, route: [route], forwardCa: pair.certFile, forwardHeader: ['X-Team: blue'], forwardSecret: FORWARD_SECRET, consolePort: 0, logFormat: 'silent' },
    env: { HOOKRELAY_FORWARD_TO: app.url, HOOKRELAY_ROUTE: route, HOOKRELAY_FORWARD_CA: pair.certFile, HOOKRELAY_FORWARD_HEADER: 'X-Team: blue', HOOKRELAY_FORWARD_SECRET: FORWARD_SECRET },
  };
}

async function post(url: string, req: SignedRequest): Promise<number> {
  const res = await request(url, { method: 'POST', headers: req.headers, body: req.body });
  await res.body.dump();
  return res.statusCode;
}

async function startListen(setup: Setup, hub?: EventHub): Promise<NodeUnderTest> {
  const dbPath = join(setup.dir, 'listen.db');
  const resolved = resolveListenConfig({ flags: { ...setup.flags, port: 0, secret: [TEST_SECRET], db: dbPath }, env: {}, configFile: join(setup.dir, 'none.json') });
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const node = await buildApp(resolved.config, hub ? { hub } : {});
  cleanups.push(() => node.close());
  return {
    dbPath,
    store: node.store,
    consoleUrl: node.consoleUrl!,
    replay: (id) => node.replay(id),
    deliver: async (req) => {
      expect(await post(node.receiverUrl, req)).toBe(200);
    },
  };
}

async function startConnect(setup: Setup, hub?: EventHub): Promise<NodeUnderTest> {
  // The public side only stores and bridges; the laptop's node has the forward settings.
  const resolvedPublic = resolveListenConfig({ flags: { port: 0, secret: [TEST_SECRET], db: join(setup.dir, 'public.db'), console: false, logFormat: 'silent' }, env: {}, configFile: join(setup.dir, 'none.json') });
  if (!resolvedPublic.ok) throw new Error(resolvedPublic.problems.join('; '));
  const publicSide = await buildApp({ ...resolvedPublic.config, bridge: { port: 0, host: '127.0.0.1', retainMs: 86_400_000, tokens: [{ name: 'laptop', token: BRIDGE_TOKEN, triggers: [] }] } });
  cleanups.push(() => publicSide.close());
  const dbPath = join(setup.dir, 'laptop.db');
  const resolved = resolveConnectConfig(publicSide.bridgeUrl!, { ...setup.flags, token: BRIDGE_TOKEN, name: 'ana', db: dbPath }, {});
  if (!resolved.ok) throw new Error(resolved.problems.join('; '));
  const node = await buildConnect(resolved.config, hub ? { hub } : {});
  cleanups.push(() => node.close());
  await until(() => node.bridge.state() === 'live', 'the laptop live');
  return {
    dbPath,
    store: node.store,
    consoleUrl: node.consoleUrl!,
    replay: (id) => node.replay(id),
    deliver: async (req) => {
      expect(await post(publicSide.receiverUrl, req)).toBe(200);
      await until(async () => (await node.store.getDelivery(req.id)) !== undefined, 'the bridged delivery');
    },
  };
}

async function consoleReplay(consoleUrl: string, id: string): Promise<{ ok: boolean; target?: string }> {
  const res = await request(new URL(`/api/deliveries/${encodeURIComponent(id)}/replay`, consoleUrl).href, {
    method: 'POST',
    headers: { origin: new URL(consoleUrl).origin, 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await res.body.json()) as { data: { ok: boolean; target?: string } }).data;
}

/** The series a /metrics text names (its # TYPE lines), less those of one side of the bridge or of fault rules. */
async function seriesOf(consoleUrl: string): Promise<string[]> {
  const res = await request(new URL('/metrics', consoleUrl).href);
  expect(res.statusCode).toBe(200);
  const text = await res.body.text();
  return [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!).filter((name) => !name.startsWith('hookrelay_bridge_') && !name.startsWith('hookrelay_faults_')).sort();
}

const intakes = [
  { name: 'listen (HTTP receiver)', start: startListen },
  { name: 'connect (bridge client)', start: startConnect },
];

describe.each(intakes)('the node contract: $name', ({ start }) => {
  it('hands a delivery on once, to its route, and a replay from the console, the CLI and the node is that hand-off, marked', async () => {
    const setup = await setUp();
    const node = await start(setup);
    const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'vendor.rating_dropped' });
    await node.deliver(req);
    await node.deliver(req); // a copy: stored once, handed on once
    await until(() => setup.vendor.seen.length === 1, 'the relay');

    expect(await consoleReplay(node.consoleUrl, req.id)).toMatchObject({ ok: true, target: setup.vendor.url });
    const cli = await runCli(['events', 'replay', req.id, '--db', node.dbPath], { env: setup.env });
    expect(cli.code, cli.stderr).toBe(0);
    expect(await node.replay(req.id)).toMatchObject({ ok: true, target: setup.vendor.url });

    const seen = setup.vendor.seen;
    expect(seen.map((s) => s.headers['x-hookrelay-replay'])).toEqual(['false', 'true', 'true', 'true']);
    for (const handOff of seen) {
      expect(handOff.headers['x-service-delivery']).toBe(req.id);
      expect(handOff.headers['x-team']).toBe('blue');
      expect(handOff.body.equals(req.body)).toBe(true);
      expect(verify(handOff.body, String(handOff.headers['x-service-signature']), { secrets: [FORWARD_SECRET] }).ok).toBe(true);
    }
    // The same header names each time, from whichever caller (the marks aside).
    const names = seen.map((s) => Object.keys(s.headers).filter((n) => n !== 'x-hookrelay-replay' && n !== 'x-hookrelay-replay-of').sort().join(','));
    expect(new Set(names).size).toBe(1);
  }, 60_000);

  it('hands on a delivery although every observer of the hub throws', async () => {
    const setup = await setUp();
    const hub = createEventHub();
    for (const name of ['delivery', 'attempt', 'relay', 'commit', 'notice'] as const) {
      hub.on(name, () => {
        throw new Error(`a broken ${name} observer`);
      });
    }
    const node = await start(setup, hub);
    const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'vendor.rating_dropped' });
    await node.deliver(req);
    await until(() => setup.vendor.seen.length === 1, 'the hand-off');
    expect(setup.vendor.seen[0]!.headers['x-service-delivery']).toBe(req.id);
  }, 60_000);
});

describe('the node contract: /metrics', () => {
  it('has the same series on connect as on listen, the store commits counted on both', async () => {
    const setup = await setUp();
    const listen = await startListen(setup);
    const laptop = await startConnect(setup);
    const req = signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'vendor.rating_dropped' });
    await listen.deliver(req);
    await laptop.deliver(signedRequest({ t: Math.floor(Date.now() / 1000), trigger: 'vendor.rating_dropped' }));
    expect(await seriesOf(laptop.consoleUrl)).toEqual(await seriesOf(listen.consoleUrl));
    for (const consoleUrl of [listen.consoleUrl, laptop.consoleUrl]) {
      const text = await (await request(new URL('/metrics', consoleUrl).href)).body.text();
      expect(Number(/^hookrelay_store_commit_seconds_count (\d+)/m.exec(text)?.[1] ?? '0')).toBeGreaterThan(0);
    }
  }, 60_000);
});
