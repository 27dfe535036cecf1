/** The built-in sender against a real hookrelay (buildApp, port 0, a temp SQLite file) with fault rules. */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import type { HubEvents } from '../../src/runtime/event-hub.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import { parseFaultRule, type FaultRule } from '../../src/core/faults/index.js';
import type { DeliveryEvent } from '../../src/core/retry-policy/delivery-events.js';
import { DEFAULT_FAILURE_HANDLING, DEFAULT_RETRY_POLICY, type FailureHandling, type RetryPolicy } from '../../src/core/retry-policy/policy.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { buildDelivery, type OutgoingDelivery } from '../../src/sender/build-request.js';
import { systemClock } from '../../src/sender/clock.js';
import { runDeliveries, type SendResult } from '../../src/sender/engine.js';
import { createHttpTransport } from '../../src/sender/http-attempt.js';
import { TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testListenConfig } from '../helpers/listen-config.js';

/** Parses one-line rules, failing the test on a bad one. */
export function rules(...lines: string[]): FaultRule[] {
  return lines.map((line) => {
    const parsed = parseFaultRule(line);
    if (!parsed.ok) throw new Error(`bad rule ${line}: ${parsed.message}`);
    return parsed.rule;
  });
}

export function listenConfig(dbPath: string, overrides: Partial<ListenConfig> = {}): ListenConfig {
  return testListenConfig(dbPath, { seed: 7, ...overrides });
}

export interface FaultApp {
  app: AppHandle;
  dbPath: string;
  /** Every socket the receiver accepted. */
  sockets: Socket[];
  /** Every attempt the receiver recorded (hub events, emitted once the record is final). */
  attempts: Array<HubEvents['attempt']['attempt']>;
  /** Resolves with the first recorded attempt that satisfies `test` (already seen ones included). */
  attempt(test: (a: HubEvents['attempt']['attempt']) => boolean): Promise<HubEvents['attempt']['attempt']>;
  /** Resolves once every accepted socket has closed, with the server's open connection count. */
  connectionsAfterClose(): Promise<number>;
}

/** Starts hookrelay with `faultRules` on a fresh temp database (or `dbPath`); closed by `cleanups`. */
export async function startFaultApp(
  cleanups: Array<() => unknown>,
  options: { faultRules?: FaultRule[]; dbPath?: string; hangCapMs?: number; config?: Partial<ListenConfig> } = {},
): Promise<FaultApp> {
  let dbPath = options.dbPath;
  if (dbPath === undefined) {
    const dir = tempDir();
    cleanups.push(dir.remove);
    dbPath = join(dir.dir, 'faults.db');
  }
  const app = await buildApp(listenConfig(dbPath, { faultRules: options.faultRules ?? [], ...options.config }), { hangCapMs: options.hangCapMs });
  cleanups.push(() => app.close());
  const sockets: Socket[] = [];
  app.receiver.server.on('connection', (socket: Socket) => sockets.push(socket));
  const attempts: FaultApp['attempts'] = [];
  const waiters: Array<{ test: (a: HubEvents['attempt']['attempt']) => boolean; resolve: (a: HubEvents['attempt']['attempt']) => void }> = [];
  app.hub.on('attempt', ({ attempt }) => {
    attempts.push(attempt);
    for (const w of waiters.splice(0)) {
      if (w.test(attempt)) w.resolve(attempt);
      else waiters.push(w);
    }
  });
  return {
    app,
    dbPath,
    sockets,
    attempts,
    attempt(test) {
      const seen = attempts.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    async connectionsAfterClose() {
      await Promise.all(sockets.map((s) => (s.destroyed ? null : once(s, 'close'))));
      return new Promise<number>((resolve, reject) => app.receiver.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    },
  };
}

export function makeDelivery(trigger = 'trustcenter.access_requested'): OutgoingDelivery {
  return buildDelivery({
    id: randomUUID(),
    trigger,
    organizationId: '11111111-1111-4111-8111-111111111111',
    createdAtMs: Date.now(),
    data: { accessRequestId: '22222222-2222-4222-8222-000000000001' },
  });
}

export interface SendOptions {
  deliveries?: OutgoingDelivery[];
  policy?: Partial<RetryPolicy>;
  failureHandling?: Partial<FailureHandling>;
  /** The sender's attempt timeout, shortened for tests (spec: 10 s). */
  timeoutMs?: number;
  timeScale?: number;
  secret?: string | null;
}

export interface SendRun extends SendResult {
  events: DeliveryEvent[];
  finished: Array<Extract<DeliveryEvent, { type: 'attempt_finished' }>>;
  sent: OutgoingDelivery[];
}

/** Runs the built-in sender (real engine, real transport) to the end. */
export async function send(url: string, options: SendOptions = {}): Promise<SendRun> {
  const transport = createHttpTransport({ timeoutMs: options.timeoutMs ?? 2000 });
  const events: DeliveryEvent[] = [];
  const sent = options.deliveries ?? [makeDelivery()];
  try {
    const result = await runDeliveries(
      {
        url,
        deliveries: sent,
        secret: options.secret === undefined ? TEST_SECRET : options.secret,
        policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 3, ...options.policy },
        failureHandling: { ...DEFAULT_FAILURE_HANDLING, ...options.failureHandling },
        webhookId: '33333333-3333-4333-8333-333333333333',
        // 60 s of policy time is 6 ms: waits are tiny, the order of events is real.
        timeScale: options.timeScale ?? 0.0001,
        onEvent: (e) => events.push(e),
      },
      { transport, clock: systemClock, random: mulberry32(3) },
    );
    const finished = events.filter((e): e is Extract<DeliveryEvent, { type: 'attempt_finished' }> => e.type === 'attempt_finished');
    return { ...result, events, finished, sent };
  } finally {
    await transport.close();
  }
}
