import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerCheckCommand } from '../../src/commands/check.js';
import type { RunVerdict } from '../../src/core/conformance/index.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { AttemptInput } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runCli } from '../sender/helpers/cli.js';

/** 2026-06-01T10:00:00.000Z */
const T0 = Date.UTC(2026, 5, 1, 10, 0, 0);
const TRIGGER = 'trustcenter.access_requested';

type Answer = number | 'hang' | 'reset' | 'close';
interface Step {
  answer: Answer;
  /** From the previous attempt's end (ms). */
  gapMs?: number;
  retryAfter?: string;
  durationMs?: number;
  header?: number | null;
  t?: number | null;
  id?: string;
}

const bodyOf = (id: string): Buffer => Buffer.from(JSON.stringify({ id, type: TRIGGER, apiVersion: '2026-06-01', createdAt: '2026-06-01T10:00:00Z', organizationId: 'org_1', data: { accessRequestId: 'ar_1' } }));

/** The records hookrelay would hold for one delivery whose attempts got `steps`. */
function attempts(id: string, start: number, steps: Step[]): AttemptInput[] {
  const body = bodyOf(id);
  const list: AttemptInput[] = [];
  let end = start;
  steps.forEach((s, i) => {
    const at = i === 0 ? start : end + (s.gapMs ?? 0);
    const duration = s.durationMs ?? (s.answer === 'hang' ? 10_000 : 20);
    const status = typeof s.answer === 'number' ? s.answer : null;
    const ok = status !== null && status < 300;
    list.push({
      deliveryId: s.id ?? id,
      trigger: TRIGGER,
      receivedAt: at,
      finishedAt: at + duration,
      attemptHeader: s.header === undefined ? i + 1 : s.header,
      signatureTimestamp: s.t === undefined ? Math.floor(at / 1000) : s.t,
      bodySha256: createHash('sha256').update(body).digest('hex'),
      bodyBytes: body.length,
      outcome: ok ? 'accepted' : 'faulted',
      status,
      reason: ok ? null : typeof s.answer === 'string' ? `fault:${s.answer}` : `fault:status ${status}`,
      retryAfter: s.retryAfter ?? null,
    });
    end = at + duration;
  });
  return list;
}

/** Writes the records through the real store, in arrival order (2xx through accept, the rest as recorded attempts). */
async function seed(dbPath: string, ...groups: AttemptInput[][]): Promise<void> {
  const store = await createSqliteStore(dbPath);
  try {
    for (const a of groups.flat().sort((x, y) => x.receivedAt - y.receivedAt)) {
      if (a.outcome !== 'accepted') {
        await store.recordAttempt(a);
        continue;
      }
      const body = bodyOf(a.deliveryId!);
      await store.accept(
        { id: a.deliveryId!, trigger: TRIGGER, apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: a.receivedAt, rawBody: body, rawHeaders: [], signature: 'valid', secretIndex: 0, signatureTimestamp: a.signatureTimestamp },
        a,
      );
    }
  } finally {
    await store.close();
  }
}

/** 503 Retry-After 120 → hang (10 s) → 200, every wait as spec 6.4 asks. */
const conforming = (id: string, start = T0): AttemptInput[] =>
  attempts(id, start, [{ answer: 503, retryAfter: '120' }, { answer: 'hang', gapMs: 120_500 }, { answer: 200, gapMs: 240_000 }]);
/** 500 → 500 after 1 s (backoff 48–72 s broken) → 200 after a right wait. */
const noBackoff = (id: string, start = T0): AttemptInput[] =>
  attempts(id, start, [{ answer: 500 }, { answer: 500, gapMs: 1000 }, { answer: 200, gapMs: 240_000 }]);

let dir: ReturnType<typeof tempDir>;
let db: string;
beforeEach(() => {
  dir = tempDir('hookrelay-check-');
  db = join(dir.dir, 'hookrelay.db');
});
afterEach(() => dir.remove());

const check = (...args: string[]) => runCli(registerCheckCommand, ['check', '--db', db, ...args]);
const checkJson = async (...args: string[]) => {
  const run = await check('--json', ...args);
  return { ...run, verdict: JSON.parse(run.out) as RunVerdict };
};
const ruleOf = (verdict: RunVerdict, index: number, rule: string) => verdict.deliveries[index]!.rules.find((r) => r.rule === rule)!;

describe('hookrelay check: the report and the exit code', () => {
  it('passes a conforming delivery: exit 0, the timeline and every rule with its numbers', async () => {
    await seed(db, conforming('evt_good'));
    const run = await check();
    expect(run.exitCode).toBe(0);
    expect(run.err).toBe('');
    expect(run.out).toContain('hookrelay check');
    expect(run.out).toContain('policy    exponential backoff, 6 attempts, initial 60 s, max 21600 s');
    expect(run.out).toMatch(/records {3}3 attempt records \(every recorded attempt\) in .*hookrelay\.db/);
    expect(run.out).toContain(`delivery evt_good  ${TRIGGER}  succeeded  PASS`);
    expect(run.out).toContain('503 Retry-After: 120');
    expect(run.out).toMatch(/pass +retry-after +every Retry-After was honoured/);
    expect(run.out).toMatch(/pass +timeout +every hang was given up at about 10 s/);
    expect(run.out).toMatch(/pass +backoff +every wait was inside its backoff window \(240\.000 s\)/);
    expect(run.out).toContain('summary: 1 delivery: 1 passed, 0 failed, 0 still retrying');
    expect(run.out).toContain('result: PASS (exit 0)');
    expect(run.out).not.toContain('FAIL');
  });

  it('fails a delivery that broke a rule: exit 1, the rule named with expected vs observed', async () => {
    await seed(db, noBackoff('evt_bad'));
    const run = await check();
    expect(run.exitCode).toBe(1);
    expect(run.out).toContain(`delivery evt_bad  ${TRIGGER}  succeeded  FAIL`);
    expect(run.out).toContain('FAIL  backoff               attempt 2: waited 1.000 s after attempt 1 ended, expected retry 1: 48 s–72 s (60 s nominal ±20%); accepted 47.750 s–73.000 s with slack');
    expect(run.out).toContain('summary: 1 delivery: 0 passed, 1 failed, 0 still retrying; rules: 5 pass, 1 fail, 3 n/a (failed: backoff ×1)');
    expect(run.out).toContain('result: FAIL (exit 1)');
  });

  it('says so and exits 0 when there is nothing to judge', async () => {
    await seed(db);
    const run = await check();
    expect(run.exitCode).toBe(0);
    expect(run.out).toContain('no deliveries to judge');
    expect(run.out).toContain('summary: 0 deliveries');
  });

  it('prints the verdict as JSON with --json, and nothing else on stdout', async () => {
    await seed(db, conforming('evt_good'), noBackoff('evt_bad', T0 + 3_600_000));
    const { verdict, exitCode, err } = await checkJson();
    expect(exitCode).toBe(1);
    expect(err).toBe('');
    expect(verdict.deliveries.map((d) => [d.deliveryId, d.status, d.state])).toEqual([
      ['evt_good', 'pass', 'succeeded'],
      ['evt_bad', 'fail', 'succeeded'],
    ]);
    expect(verdict.summary).toMatchObject({ deliveries: 2, passed: 1, failed: 1, retrying: 0, failures: 1 });
    const backoff = ruleOf(verdict, 1, 'backoff');
    expect(backoff.status).toBe('fail');
    expect(backoff.findings[0]).toMatchObject({ attempt: 2, ok: false, bounds: { min: 47.75, max: 73 }, value: 1 });
    expect(verdict.deliveries[0]!.timeline.map((a) => a.answerClass)).toEqual(['http_5xx', 'timeout', 'success']);
    expect(verdict.suspension.status).toBe('n/a');
  });

  it('prints every finding with --verbose', async () => {
    await seed(db, conforming('evt_good'));
    const quiet = await check();
    const verbose = await check('--verbose');
    expect(quiet.out).not.toContain('ok    attempt 2: expected');
    expect(verbose.out).toContain('ok    attempt 2: expected Retry-After 120: at least 120.000 s');
    expect(verbose.exitCode).toBe(0);
  });

  it('escapes control characters from recorded headers', async () => {
    await seed(db, attempts('evt_\u001b[31mred', T0, [{ answer: 200 }]));
    const run = await check();
    expect(run.out).toContain('evt_\\u001b[31mred');
    expect(run.out).not.toContain('\u001b');
  });

  it('shows a delivery whose next retry may still come as retrying (judged now), and passes it', async () => {
    const now = Date.now();
    await seed(db, attempts('evt_waiting', now - 5_000, [{ answer: 500 }]));
    const { verdict, exitCode } = await checkJson();
    expect(exitCode).toBe(0);
    expect(verdict.deliveries[0]!.state).toBe('retrying');
    expect(ruleOf(verdict, 0, 'max-attempts').status).toBe('n/a');
    expect(verdict.summary.retrying).toBe(1);
  });

  it('fails a delivery whose owed retry is overdue (the sender stopped early)', async () => {
    await seed(db, attempts('evt_stopped', T0, [{ answer: 500 }]));
    const { verdict, exitCode } = await checkJson();
    expect(exitCode).toBe(1);
    expect(ruleOf(verdict, 0, 'max-attempts')).toMatchObject({ status: 'fail' });
    expect(ruleOf(verdict, 0, 'max-attempts').message).toContain('the sender stopped after 1 of 6 attempts');
  });
});

describe('hookrelay check --delivery', () => {
  it('judges only that delivery, and exits by its rules alone', async () => {
    await seed(db, conforming('evt_good'), noBackoff('evt_bad', T0 + 3_600_000));
    const good = await checkJson('--delivery', 'evt_good');
    expect(good.exitCode).toBe(0);
    expect(good.verdict.deliveries.map((d) => d.deliveryId)).toEqual(['evt_good']);
    expect(good.verdict.summary).toMatchObject({ deliveries: 1, passed: 1, failed: 0 });
    const bad = await check('--delivery', 'evt_bad');
    expect(bad.exitCode).toBe(1);
    expect(bad.out).toContain('delivery evt_bad');
    expect(bad.out).not.toContain('delivery evt_good');
    expect(bad.out).toContain('showing delivery evt_bad');
  });

  it('finds a delivery by another id it was sent under (same body)', async () => {
    const changed = attempts('evt_orig', T0, [{ answer: 500 }, { answer: 200, gapMs: 60_000, id: 'evt_other' }]);
    await seed(db, changed);
    const run = await checkJson('--delivery', 'evt_other');
    expect(run.exitCode).toBe(1);
    expect(run.verdict.deliveries[0]).toMatchObject({ deliveryId: 'evt_orig', otherDeliveryIds: ['evt_other'] });
    expect(ruleOf(run.verdict, 0, 'same-delivery').status).toBe('fail');
  });

  it('keeps the run\'s suspension where it concerns the delivery: an attempt after a 410 elsewhere fails it', async () => {
    // evt_gone is answered 410 (suspends the webhook); evt_late arrives a minute later.
    await seed(db, attempts('evt_gone', T0, [{ answer: 410 }]), attempts('evt_late', T0 + 60_000, [{ answer: 200 }]));
    const late = await checkJson('--delivery', 'evt_late');
    expect(late.exitCode).toBe(1);
    expect(late.verdict.suspension).toMatchObject({ status: 'fail', cause: 'gone', causeDeliveryId: 'evt_gone' });
    expect(late.verdict.suspension.message).toContain("this delivery's attempt 1 arrived after");
    const gone = await checkJson('--delivery', 'evt_gone');
    expect(gone.exitCode).toBe(0);
    expect(gone.verdict.suspension).toMatchObject({ status: 'pass', findings: [] });
    expect(gone.verdict.suspension.message).toContain('this delivery caused it');
  });

  it('refuses an id nothing carries: exit 2, naming --delivery', async () => {
    await seed(db, conforming('evt_good'));
    const run = await check('--delivery', 'evt_nope');
    expect(run.exitCode).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toContain('--delivery: no recorded attempt carries delivery id evt_nope');
  });
});

describe('hookrelay check --since', () => {
  it('judges only deliveries with an attempt since TIME, each whole (attempts before TIME included)', async () => {
    // evt_old ends before TIME; evt_cut has attempt 1 before TIME and 2–3 after; evt_new starts after.
    const old = attempts('evt_old', T0, [{ answer: 500 }, { answer: 500, gapMs: 1000 }]);
    const cut = conforming('evt_cut', T0 + 3_600_000);
    const fresh = attempts('evt_new', T0 + 7_200_000, [{ answer: 200 }]);
    await seed(db, old, cut, fresh);
    const since = new Date(T0 + 3_600_000 + 60_000).toISOString();
    const run = await checkJson('--since', since);
    expect(run.verdict.deliveries.map((d) => [d.deliveryId, d.timeline.length])).toEqual([
      ['evt_cut', 3],
      ['evt_new', 1],
    ]);
    expect(run.exitCode).toBe(0);
    const all = await checkJson();
    expect(all.verdict.deliveries).toHaveLength(3);
    expect(all.exitCode).toBe(1);
  });

  it('reads a time ago: --since 10m', async () => {
    const now = Date.now();
    await seed(db, attempts('evt_20m', now - 20 * 60_000, [{ answer: 200 }]), attempts('evt_5m', now - 5 * 60_000, [{ answer: 200 }]));
    const run = await checkJson('--since', '10m');
    expect(run.verdict.deliveries.map((d) => d.deliveryId)).toEqual(['evt_5m']);
    const text = await check('--since', '1h');
    expect(text.out).toContain('delivery evt_20m');
    expect(text.out).toMatch(/records {3}2 attempt records \(deliveries with an attempt since \d{4}-/);
  });

  it('combines with --delivery: the delivery judged within the window', async () => {
    await seed(db, conforming('evt_a'), attempts('evt_b', T0 + 3_600_000, [{ answer: 200 }]));
    const run = await check('--since', new Date(T0 + 3_000_000).toISOString(), '--delivery', 'evt_a');
    expect(run.exitCode).toBe(2);
    expect(run.err).toContain('--delivery: no recorded attempt since 2026-06-01T10:50:00.000Z carries delivery id evt_a');
  });
});

describe('hookrelay check: the policy and the judging settings', () => {
  const threeAttempts = () => attempts('evt_3', T0, [{ answer: 500 }, { answer: 500, gapMs: 60_000 }, { answer: 500, gapMs: 240_000 }]);

  it.each([
    ['--max-attempts', ['--max-attempts', '2']],
    ['--policy', ['--policy', '{"maxAttempts":2}']],
    ['--retry-policy', ['--retry-policy', '{"maxAttempts":2}']],
  ])('judges against the policy given with %s', async (_name, flags) => {
    await seed(db, threeAttempts());
    const withDefault = await checkJson();
    expect(ruleOf(withDefault.verdict, 0, 'max-attempts').status).toBe('fail'); // stopped after 3 of 6
    const withTwo = await checkJson(...flags);
    expect(withTwo.exitCode).toBe(1);
    expect(ruleOf(withTwo.verdict, 0, 'max-attempts').message).toContain('3 attempts arrived; the policy allows 2');
    expect(withTwo.out).not.toBe('');
  });

  it('passes a full run of the given policy (--max-attempts 3 --backoff fixed --initial-delay 60)', async () => {
    await seed(db, attempts('evt_fixed', T0, [{ answer: 500 }, { answer: 500, gapMs: 60_000 }, { answer: 500, gapMs: 60_000 }]));
    expect((await check('--max-attempts', '3')).exitCode).toBe(1); // exponential: the second wait should be ~240 s
    const run = await check('--max-attempts', '3', '--backoff', 'fixed', '--initial-delay', '60');
    expect(run.exitCode).toBe(0);
    expect(run.out).toContain('policy    fixed backoff, 3 attempts, initial 60 s');
  });

  it('judges a compressed run with --time-scale', async () => {
    // 503 Retry-After 120 at 0.01 → 1.2 s; backoff retry 2 at 0.01 → 1.92–2.88 s.
    await seed(db, attempts('evt_fast', T0, [{ answer: 503, retryAfter: '120' }, { answer: 500, gapMs: 1250 }, { answer: 200, gapMs: 2400 }]));
    expect((await check()).exitCode).toBe(1);
    const run = await check('--time-scale', '0.01');
    expect(run.exitCode).toBe(0);
    expect(run.out).toContain('judging   time scale 0.01, tolerance 300 s, attempt timeout 10 s, slack −100/+500 ms');
  });

  it('takes the slack from --slack', async () => {
    // 73.5 s: outside 48–72 s + 1 s late slack; inside with 2 s.
    await seed(db, attempts('evt_late', T0, [{ answer: 500 }, { answer: 200, gapMs: 73_500 }]));
    expect((await check()).exitCode).toBe(1);
    const run = await check('--slack', '250,2000');
    expect(run.exitCode).toBe(0);
    expect(run.out).toContain('slack −250/+2000 ms');
  });

  it('takes the attempt timeout from --timeout (ms, or s)', async () => {
    await seed(db, attempts('evt_hang', T0, [{ answer: 'hang', durationMs: 2000 }, { answer: 200, gapMs: 60_000 }]));
    const byDefault = await checkJson();
    expect(ruleOf(byDefault.verdict, 0, 'timeout').status).toBe('fail');
    for (const value of ['2000', '2s']) {
      const run = await checkJson('--timeout', value);
      expect(ruleOf(run.verdict, 0, 'timeout').status).toBe('pass');
      expect(run.exitCode).toBe(0);
    }
  });

  it('takes the signature tolerance from --tolerance, or from the config file like listen', async () => {
    await seed(db, attempts('evt_skew', T0, [{ answer: 200, t: Math.floor(T0 / 1000) - 400 }]));
    expect((await check()).exitCode).toBe(1);
    expect((await check('--tolerance', '500')).exitCode).toBe(0);
    const config = join(dir.dir, 'hookrelay.config.json');
    writeFileSync(config, JSON.stringify({ tolerance: 500, db }));
    const run = await runCli(registerCheckCommand, ['check', '--config', config]);
    expect(run.exitCode).toBe(0);
    expect(run.out).toContain('tolerance 500 s');
  });

  it('takes failure handling from --auto-disable-after and --no-disable-on-gone', async () => {
    await seed(db, attempts('evt_gone', T0, [{ answer: 410 }]), attempts('evt_after', T0 + 60_000, [{ answer: 200 }]));
    const byDefault = await checkJson();
    expect(byDefault.verdict.suspension.status).toBe('fail');
    const keep = await checkJson('--no-disable-on-gone');
    expect(keep.verdict.suspension.status).toBe('n/a');
    expect(keep.exitCode).toBe(0);
    const once = await checkJson('--no-disable-on-gone', '--auto-disable-after', '1');
    expect(once.verdict.suspension).toMatchObject({ status: 'fail', cause: 'consecutive-failures' });
  });
});

describe('hookrelay check: refused input', () => {
  it('lists every bad flag at once, each named, and exits 2 with nothing on stdout', async () => {
    await seed(db, conforming('evt_good'));
    const run = await check(
      '--since', 'yesterday',
      '--time-scale', '0',
      '--slack', '100',
      '--timeout', '-5',
      '--tolerance', 'x',
      '--auto-disable-after', '0',
      '--max-attempts', '11',
      '--retry-on', 'http_5xx,http_410',
      '--delivery', '',
    );
    expect(run.exitCode).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toContain('hookrelay check: 9 problems:');
    for (const flag of ['--since:', '--time-scale:', '--slack:', '--timeout:', '--tolerance:', '--auto-disable-after:', '--max-attempts:', '--retry-on:', '--delivery:']) {
      expect(run.err).toContain(`  - ${flag}`);
    }
    expect(run.err).toContain('--retry-on: retryOn[1] must be one of timeout, network, http_408, http_429, http_5xx, http_4xx (got "http_410")');
  });

  it.each([
    [['--policy', '{"maxAttempts":2}', '--retry-policy', '{}'], '--policy: give either --policy or --retry-policy'],
    [['--policy', '{"maxAttempts":2}', '--backoff', 'fixed'], '--policy: give either the whole policy as JSON or --backoff, not both'],
    [['--policy', '{not json'], '--policy: retryPolicy is not valid JSON'],
    [['--retry-policy', '{"maxAttempts":0,"backof":1}'], '--retry-policy: retryPolicy.backof is not a recognised field'],
    [['--initial-delay', '600', '--max-delay', '60'], '--initial-delay: must not exceed maxDelaySeconds (600 > 60)'],
  ])('refuses policy flags %j', async (flags, message) => {
    await seed(db);
    const run = await check(...flags);
    expect(run.exitCode).toBe(2);
    expect(run.err).toContain(message);
  });

  it('refuses a missing database with exit 2', async () => {
    const run = await runCli(registerCheckCommand, ['check', '--db', join(dir.dir, 'none.db')]);
    expect(run.exitCode).toBe(2);
    expect(run.err).toContain('no database at');
    expect(run.err).toContain('none.db');
  });

  it('exits 3 (could not run), not 1 (a finding), on a store it cannot read', async () => {
    const damaged = join(dir.dir, 'damaged.db');
    writeFileSync(damaged, Buffer.alloc(8192, 0x5a));
    const run = await runCli(registerCheckCommand, ['check', '--db', damaged]);
    expect(run.exitCode).toBe(3);
    expect(run.err).toContain('cannot read the store');
  });
});

describe('hookrelay check: flags commander refuses', () => {
  it.each([
    [['--polcy', '{}'], 'commander.unknownOption'],
    [['--since'], 'commander.optionMissingArgument'],
    [['extra'], 'commander.excessArguments'],
  ])('exits 2, not 1 (a rule failure), for %j', async (args, code) => {
    let err = '';
    const program = new Command().configureOutput({ writeOut: () => {}, writeErr: (s) => void (err += s) });
    registerCheckCommand(program);
    const before = process.exitCode;
    process.exitCode = undefined;
    try {
      await expect(program.parseAsync(['check', '--db', db, ...args], { from: 'user' })).rejects.toMatchObject({ exitCode: 2, code });
      expect(process.exitCode).toBe(2);
      expect(err).toMatch(/^error: /);
    } finally {
      process.exitCode = before;
    }
  });

  it('keeps exit 0 for --help', async () => {
    let out = '';
    const program = new Command().configureOutput({ writeOut: (s) => void (out += s), writeErr: () => {} });
    registerCheckCommand(program);
    const before = process.exitCode;
    process.exitCode = undefined;
    try {
      await expect(program.parseAsync(['check', '--help'], { from: 'user' })).rejects.toMatchObject({ exitCode: 0, code: 'commander.helpDisplayed' });
      expect(process.exitCode).toBeUndefined();
      expect(out).toContain('check [options]');
      for (const flag of ['--delivery <id>', '--since <time>', '--policy <json>', '--retry-policy <json>', '--max-attempts <n>', '--auto-disable-after <n>', '--no-disable-on-gone', '--tolerance <seconds>', '--timeout <ms>', '--slack <early,late>', '--time-scale <factor>', '--json', '--verbose', '--db <file>', '--config <file>']) {
        expect(out).toContain(flag);
      }
    } finally {
      process.exitCode = before;
    }
  });
});
