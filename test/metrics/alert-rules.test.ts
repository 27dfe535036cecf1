/**
 * The Prometheus alert rules of deploy/prometheus (issue 39, item 3): valid (`promtool check rules`),
 * firing when their unit tests say (`promtool test rules`: a target down longer than the rule waits
 * fires it, and not before), and written against series /metrics really serves. promtool comes from
 * Debian's `prometheus` package (.ci/run installs it); without it the promtool tests are skipped.
 */
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { attemptFor, makeDelivery } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp-dir.js';

const DIR = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url));
const RULES = join(DIR, 'hookrelay-alerts.yml');
const TESTS = join(DIR, 'hookrelay-alerts.test.yml');

function hasPromtool(): boolean {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const PROMTOOL = hasPromtool();
const SKIPPED = PROMTOOL ? '' : ' (skipped: promtool is not installed; apt-get install prometheus)';

function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('promtool', args, { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('Prometheus alert rules', () => {
  it.skipIf(!PROMTOOL)(`promtool check rules: the file is valid and holds the four rules${SKIPPED}`, async () => {
    const { code, output } = await promtool(['check', 'rules', RULES], DIR);
    expect(output).toContain('SUCCESS: 4 rules found');
    expect(code).toBe(0);
  });

  it.skipIf(!PROMTOOL)(`promtool test rules: a target down longer than the rule waits fires it, and not before${SKIPPED}`, async () => {
    const { code, output } = await promtool(['test', 'rules', TESTS], DIR);
    expect(output).toContain('SUCCESS');
    expect(code).toBe(0);
  });

  it.skipIf(!PROMTOOL)(`the unit tests bite: a rule that waits 10 minutes instead of 5 fails them${SKIPPED}`, async () => {
    const { dir, remove } = tempDir();
    try {
      copyFileSync(TESTS, join(dir, 'hookrelay-alerts.test.yml'));
      const rules = readFileSync(RULES, 'utf8');
      const slower = rules.replace(/(alert: HookrelayTargetFailing\n(?:.*\n)*?\s+for: )5m/, '$110m');
      expect(slower).not.toBe(rules);
      writeFileSync(join(dir, 'hookrelay-alerts.yml'), slower);
      const { code, output } = await promtool(['test', 'rules', 'hookrelay-alerts.test.yml'], dir);
      expect(code).not.toBe(0);
      expect(output).toContain('alertname: HookrelayTargetFailing, time: 7m');
    } finally {
      remove();
    }
  });

  it('every hookrelay series the rules read is one /metrics serves', async () => {
    const names = new Set(readFileSync(RULES, 'utf8').match(/\bhookrelay_[a-z_]+/g));
    expect(names.size).toBeGreaterThanOrEqual(5);
    const store = createMemoryStore({ outbox: { to: 'http://127.0.0.1:3000/hooks', routes: [] } });
    const d = makeDelivery();
    await store.accept(d, attemptFor(d));
    const metrics = createMetrics({ hub: createEventHub(), processMetrics: false, lagReads: store });
    metrics.setBridgeSubscribers(async () => [{ subscriber: 'laptop', ackedSeq: 0, lag: 1, connected: true }]);
    const served = new Set([...(await metrics.render()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    metrics.close();
    for (const name of names) expect(served, name).toContain(name);
  });
});
