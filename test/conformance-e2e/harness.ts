/**
 * End-to-end conformance harness: a real hookrelay receiver (buildApp, port 0, a temp SQLite file,
 * fault rules), a sender against it, then `hookrelay check` over the database the receiver wrote.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { registerCheckCommand } from '../../src/commands/check.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import type { RuleStatus, RunVerdict } from '../../src/core/conformance/index.js';
import { parseFaultRule, type FaultRule } from '../../src/core/faults/index.js';
import { DEFAULT_FAILURE_HANDLING, DEFAULT_RETRY_POLICY, type FailureHandling, type RetryPolicy } from '../../src/core/retry-policy/policy.js';
import { mulberry32 } from '../../src/core/seeded-random.js';
import { buildDelivery, type OutgoingDelivery } from '../../src/sender/build-request.js';
import { systemClock } from '../../src/sender/clock.js';
import { runDeliveries, type SendResult } from '../../src/sender/engine.js';
import { createHttpTransport } from '../../src/sender/http-attempt.js';
import { TEST_SECRET } from '../helpers/signed-delivery.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from '../sender/helpers/cli.js';
import { testListenConfig } from '../helpers/listen-config.js';

export { TEST_SECRET };

/** The attempt timeout every sender here uses (the spec's 10 s, shortened), passed to the judge too. */
export const ATTEMPT_TIMEOUT_MS = 500;

export type Cleanups = Array<() => unknown>;

export interface Receiver {
  app: AppHandle;
  url: string;
  dbPath: string;
  /**
   * Resolves once every request the receiver got has its final record (a hang is recorded when
   * the client gives up, a rejection a moment after its answer), then closes the receiver, which
   * flushes the store.
   */
  finish(): Promise<void>;
}

function rulesOf(lines: readonly string[]): FaultRule[] {
  return lines.map((line) => {
    const parsed = parseFaultRule(line);
    if (!parsed.ok) throw new Error(`bad fault rule ${line}: ${parsed.message}`);
    return parsed.rule;
  });
}

/** A clock that moves only when told: `now` never changes on its own. */
export interface ManualClock {
  now(): number;
  advance(ms: number): void;
}

/** A manual clock starting at `startMs`. */
export function manualClock(startMs: number): ManualClock {
  let now = startMs;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}

/**
 * Starts hookrelay on 127.0.0.1:0 with `faults` (one-line rules) over a fresh database. With
 * `clock`, the receiver stamps every record (arrival, answer, signature check) with it instead of
 * the system clock.
 */
export async function startReceiver(cleanups: Cleanups, faults: readonly string[] = [], options: { clock?: ManualClock } = {}): Promise<Receiver> {
  const dir = tempDir('hookrelay-e2e-');
  cleanups.push(dir.remove);
  const dbPath = join(dir.dir, 'hookrelay.db');
  const config: ListenConfig = testListenConfig(dbPath, { faultRules: rulesOf(faults), seed: 1 });
  const app = await buildApp(config, options.clock ? { clock: options.clock.now } : {});
  cleanups.push(() => app.close());
  let requests = 0;
  let recorded = 0;
  let wake: (() => void) | null = null;
  app.receiver.server.on('request', () => void (requests += 1));
  app.hub.on('attempt', () => {
    recorded += 1;
    if (recorded >= requests) wake?.();
  });
  return {
    app,
    url: app.receiverUrl,
    dbPath,
    async finish() {
      if (recorded < requests) await new Promise<void>((resolve) => (wake = resolve));
      await app.close();
    },
  };
}

/** A delivery as the built-in sender builds it, with a fresh id. */
export function newDelivery(trigger = 'trustcenter.access_requested'): OutgoingDelivery {
  return buildDelivery({
    id: randomUUID(),
    trigger,
    organizationId: '11111111-1111-4111-8111-111111111111',
    createdAtMs: Date.now(),
    data: { accessRequestId: '22222222-2222-4222-8222-000000000001' },
  });
}

export interface BuiltInRun {
  policy?: Partial<RetryPolicy>;
  failureHandling?: Partial<FailureHandling>;
  timeScale: number;
  deliveries?: OutgoingDelivery[];
  concurrency?: number;
}

/** Runs hookrelay's own sender (engine and HTTP transport) to the end against `url`. */
export async function sendBuiltIn(url: string, run: BuiltInRun): Promise<SendResult> {
  const transport = createHttpTransport({ timeoutMs: ATTEMPT_TIMEOUT_MS });
  try {
    return await runDeliveries(
      {
        url,
        deliveries: run.deliveries ?? [newDelivery()],
        secret: TEST_SECRET,
        policy: { ...DEFAULT_RETRY_POLICY, ...run.policy },
        failureHandling: { ...DEFAULT_FAILURE_HANDLING, ...run.failureHandling },
        webhookId: '33333333-3333-4333-8333-333333333333',
        concurrency: run.concurrency ?? 1,
        timeScale: run.timeScale,
      },
      { transport, clock: systemClock, random: mulberry32(11) },
    );
  } finally {
    await transport.close();
  }
}

export interface CheckRun {
  verdict: RunVerdict;
  exitCode: number | undefined;
  /** The human report of the same check (for failure messages). */
  report: string;
}

/** `hookrelay check --db <the receiver's db> --timeout <ATTEMPT_TIMEOUT_MS> …flags`, as JSON and as text. */
export async function check(receiver: Receiver, ...flags: string[]): Promise<CheckRun> {
  const args = ['check', '--db', receiver.dbPath, '--timeout', String(ATTEMPT_TIMEOUT_MS), ...flags];
  const json = await runCli(registerCheckCommand, [...args, '--json']);
  if (json.err !== '') throw new Error(`check refused its flags: ${json.err}`);
  const text = await runCli(registerCheckCommand, args);
  return { verdict: JSON.parse(json.out) as RunVerdict, exitCode: json.exitCode, report: text.out };
}

/** Every rule's status: `{ 'backoff': ['pass', 'n/a'], … , suspension: ['pass'] }` (one entry per delivery). */
export function statuses(verdict: RunVerdict): Record<string, RuleStatus[]> {
  const out: Record<string, RuleStatus[]> = {};
  for (const d of verdict.deliveries) for (const r of d.rules) (out[r.rule] ??= []).push(r.status);
  out.suspension = [verdict.suspension.status];
  return out;
}

/** The names of the rules that failed anywhere in the run. */
export function failedRules(verdict: RunVerdict): string[] {
  return Object.entries(statuses(verdict))
    .filter(([, list]) => list.includes('fail'))
    .map(([rule]) => rule)
    .sort();
}
