/**
 * The composition root of `hookrelay emulate`: the instance lock, the key material, the emulator's
 * database, the delivery engine (the sender's transport and attempt) and the API listener.
 * Returns a handle whose close() stops them last first.
 */
import type { LookupFunction } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { EmulatorConfig } from '../config/emulate-config.js';
import { dataDirOf } from '../config/data-dir.js';
import { mulberry32 } from '../core/seeded-random.js';
import { createEmulatorDeliveries } from '../emulator/emulator-deliveries.js';
import { startDeliveryEngine, type EngineEvent } from '../emulator/delivery-engine.js';
import type { EmulatorContext } from '../emulator/emulator-context.js';
import { openEmulatorDb } from '../emulator/emulator-db.js';
import { addressRule } from '../emulator/endpoint-rule.js';
import { loadKeyMaterial, type KeysFile } from '../emulator/key-material.js';
import { createRateLimiter } from '../emulator/rate-limit.js';
import { createSecretBox } from '../emulator/secret-box.js';
import { API_PREFIX, buildEmulatorServer } from '../emulator/server.js';
import { createWebhookStore } from '../emulator/webhook-store.js';
import { createTrustCenterStore } from '../emulator/trust-center-store.js';
import { urlHost } from '../runtime/hosts.js';
import { systemClock, type SenderClock } from '../sender/clock.js';
import { createHttpTransport } from '../sender/http-attempt.js';
import { acquireInstanceLock, InstanceLockedError } from '../store/sqlite/instance-lock.js';
import { closer } from './closer.js';
import { assertPortsFree } from './ports-free.js';

export interface EmulatorHandle {
  /** http://host:port/v1 */
  baseUrl: string;
  keys: KeysFile;
  /** The listener, for inject() in tests. */
  server: FastifyInstance;
  close(): Promise<void>;
}

export interface EmulatorOverrides {
  /** Name resolution for the endpoint rule and every attempt (tests). */
  lookup?: LookupFunction;
  /** Attempt deadline in ms (spec 6.4: 10 s). */
  attemptTimeoutMs?: number;
  clock?: SenderClock;
  onEvent?: (event: EngineEvent) => void;
}

export async function buildEmulator(config: EmulatorConfig, overrides: EmulatorOverrides = {}): Promise<EmulatorHandle> {
  const stack = closer();
  try {
    // A busy port fails the start before anything is created: no lock file, keys or database.
    await assertPortsFree([{ port: config.port, host: config.host, code: 'EADDRINUSE', hostFlag: '--host', busy: `port ${config.port} on ${config.host} is already in use: stop the other process or pass --port` }]);
    let lock;
    try {
      lock = acquireInstanceLock(config.dbPath);
    } catch (err) {
      if (err instanceof InstanceLockedError) throw new Error(`${config.dbPath} is already served by another \`hookrelay emulate\`: two would send the same attempts twice. Stop it, or pass another --db`);
      throw err;
    }
    stack.add(() => lock.release());
    const keys = loadKeyMaterial(dataDirOf(config.dbPath), config.extraKeys);
    const db = openEmulatorDb(config.dbPath);
    stack.add(() => db.close());
    const clock = overrides.clock ?? systemClock;
    const random = config.seed === null ? Math.random : mulberry32(config.seed);
    let wake = (): void => {};
    const ctx: EmulatorContext = {
      db,
      webhooks: createWebhookStore(db),
      deliveries: createEmulatorDeliveries(db),
      trustCenter: createTrustCenterStore(db),
      box: createSecretBox(keys.masterKey),
      keys,
      plan: config.plan,
      webhookCap: config.webhookCap,
      ssrf: config.ssrf,
      ...(overrides.lookup ? { lookup: overrides.lookup } : {}),
      now: () => clock.now(),
      wake: () => wake(),
    };
    // Spec 6.4: every attempt resolves the name again, so no connection is kept between attempts.
    const transport = createHttpTransport({
      refuseAddress: addressRule(config.ssrf),
      keepAlive: false,
      ...(config.proxy ? { proxy: config.proxy } : {}),
      ...(overrides.lookup ? { lookup: overrides.lookup } : {}),
      ...(overrides.attemptTimeoutMs ? { timeoutMs: overrides.attemptTimeoutMs } : {}),
    });
    stack.add(() => transport.close());
    const engine = startDeliveryEngine(ctx, { transport, clock, random, timeScale: config.timeScale, ...(overrides.onEvent ? { onEvent: overrides.onEvent } : {}) });
    stack.add(() => engine.close());
    wake = engine.wake;
    const server = buildEmulatorServer({ ctx, limiter: config.rateLimitScale === null ? null : createRateLimiter(config.rateLimitScale), random });
    stack.add(() => server.close());
    await server.listen({ port: config.port, host: config.host });
    const address = server.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    return { baseUrl: `http://${urlHost(config.host)}:${port}${API_PREFIX}`, keys: keys.file, server, close: () => stack.close() };
  } catch (err) {
    await stack.close().catch(() => {});
    throw err;
  }
}
