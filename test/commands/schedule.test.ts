import { describe, expect, it } from 'vitest';
import { registerScheduleCommand } from '../../src/commands/schedule.js';
import { runCli } from '../sender/helpers/cli.js';

const schedule = (...args: string[]) => runCli(registerScheduleCommand, ['schedule', ...args]);

describe('hookrelay schedule', () => {
  it('prints the default schedule: waits, ±20% bounds, the cap and the cumulative times of spec 6.4 rule 4', async () => {
    const { out, exitCode } = await schedule();
    expect(exitCode).toBeUndefined();
    const rows = out.split('\n').filter((l) => /^\d+\s/.test(l));
    expect(rows).toHaveLength(5);
    const cumulative = ['1 min', '5 min', '21 min', '1 h 25 min', '5 h 41 min'];
    const nominal = ['1 min', '4 min', '16 min', '1 h 4 min', '4 h 16 min'];
    rows.forEach((row, i) => {
      const cells = row.split(/\s{2,}/);
      expect(cells[0]).toBe(String(i + 1));
      expect(cells[1]).toBe(String(i + 2));
      expect(cells[2]).toBe(nominal[i]);
      expect(cells[4]).toBe('6 h');
      expect(cells[5]).toBe(cumulative[i]);
    });
    expect(rows[0]).toContain('48 s – 1 min 12 s');
    expect(out).toContain('maxDelaySeconds 21600');
    expect(out).toContain('Retry-After on 429 or 503 replaces the wait, honoured between 10 s and 6 h');
  });

  it('prints JSON with --json', async () => {
    const { out } = await schedule('--json');
    const parsed = JSON.parse(out);
    expect(parsed.retries.map((r: { cumulativeNominal: number }) => r.cumulativeNominal)).toEqual([60, 300, 1260, 5100, 20460]);
    expect(parsed.retries[0]).toMatchObject({ retry: 1, beforeAttempt: 2, nominal: 60, min: 48, max: 72, capSeconds: 21600, capped: false });
    expect(parsed.policy.maxAttempts).toBe(6);
  });

  it('applies the policy flags and marks the cap where it applies', async () => {
    const { out } = await schedule('--max-attempts', '4', '--initial-delay', '600', '--max-delay', '2500');
    const rows = out.split('\n').filter((l) => /^\d+\s/.test(l));
    expect(rows).toHaveLength(3);
    expect(rows[1]).toContain('41 min 40 s (applies)');
    expect(rows[2]).toContain('41 min 40 s (capped from 2 h 40 min)');
  });

  it('shows fixed backoff without jitter and a disabled policy as one attempt', async () => {
    const fixed = await schedule('--backoff', 'fixed', '--initial-delay', '30', '--max-attempts', '3');
    expect(fixed.out).toContain('bounds (no jitter)');
    expect(fixed.out.split('\n').filter((l) => /^\d+\s/.test(l)).map((l) => l.split(/\s{2,}/)[5])).toEqual(['30 s', '1 min']);
    const disabled = await schedule('--retry-policy', '{"enabled":false}');
    expect(disabled.out).toContain('single attempt');
  });

  it('refuses an invalid policy naming the field, exit 2', async () => {
    const { err, exitCode } = await schedule('--max-delay', '30');
    expect(exitCode).toBe(2);
    expect(err).toContain('retryPolicy.maxDelaySeconds must be an integer from 60 to 86400 (got 30)');
    const json = await schedule('--initial-delay', '5', '--json');
    expect(JSON.parse(json.err)).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'retryPolicy.initialDelaySeconds' }] });
  });
});
