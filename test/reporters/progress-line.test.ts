/** The progress line of long jobs: redrawn in place on a terminal, plain lines in a pipe, with or without a known total. */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgressLine } from '../../src/reporter/progress-line.js';

function stream(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { isTTY: boolean; text: () => string };
  out.isTTY = isTTY;
  out.text = () => chunks.join('');
  return out;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the progress line', () => {
  it('redraws one line on a terminal, at most ten times a second, with rate and time left, and ends it with a newline', () => {
    vi.stubEnv('CI', '');
    const out = stream(true);
    let now = 0;
    const line = createProgressLine({ label: 'replay', total: 1000, stream: out, clock: () => now });
    now = 50;
    line.update(10, 10); // the first draw
    now = 80;
    line.update(20, 20); // within 100 ms of it: not drawn
    now = 2_000;
    line.update(500, 500);
    line.end();
    const draws = out.text().split('\r\x1b[2K').filter(Boolean);
    // The first line at once, with no rate yet (50 ms say nothing of one).
    expect(draws).toEqual(['replay: 10/1,000 (1%)', 'replay: 500/1,000 (50%)  250/s  0:02 left', 'replay: 500/1,000 (50%)  250/s  0:02 left\n']);
  });

  it('writes plain lines in a pipe (or on a CI terminal), none before the first interval, and ends with the last count', () => {
    for (const [isTTY, ci] of [[false, ''], [true, 'true']] as const) {
      vi.stubEnv('CI', ci);
      const out = stream(isTTY);
      let now = 0;
      const line = createProgressLine({ label: 'backup', total: 3, stream: out, clock: () => now, plainEveryMs: 5_000 });
      now = 6_000;
      line.update(1, 1);
      now = 7_000;
      line.update(2, 2); // within 5 s of the last line
      line.end(); // the last count, once more
      expect(out.text()).toBe('backup: 1/3 (33%)  0.2/s  0:12 left\nbackup: 2/3 (66%)  0.3/s  0:04 left\n');
      // A job of a moment writes its last count only; one of unknown total, nothing.
      const quick = stream(isTTY);
      const brief = createProgressLine({ label: 'backup', total: 3, stream: quick, clock: () => now, plainEveryMs: 5_000 });
      brief.update(3, 3);
      brief.end();
      expect(quick.text()).toBe('backup: 3/3 (100%)\n');
      const open = stream(isTTY);
      const listing = createProgressLine({ label: 'listed', total: null, stream: open, clock: () => now, plainEveryMs: 5_000 });
      listing.update(3, 3);
      listing.end();
      expect(open.text()).toBe('');
    }
  });

  it('counts and rates a job whose total is not known, with no percent or time left', () => {
    vi.stubEnv('CI', '');
    const out = stream(false);
    let now = 0;
    const line = createProgressLine({ label: 'listed', total: null, stream: out, clock: () => now, plainEveryMs: 1_000 });
    now = 2_000;
    line.update(12_345, 12_345);
    line.end();
    expect(out.text()).toBe('listed: 12,345  6173/s\n');
  });

  it('past a total read at the start (a database that grew), stays throttled and never shows more than 100%', () => {
    vi.stubEnv('CI', '');
    const out = stream(true);
    let now = 0;
    const line = createProgressLine({ label: 'backup', total: 10, stream: out, clock: () => now });
    for (let done = 1; done <= 200; done++) {
      now += 1; // 200 steps in 200 ms
      line.update(done, done);
    }
    line.end();
    const draws = out.text().split('\r\x1b[2K').filter(Boolean);
    // The total reached is shown once at once; past it, at most ten a second: in 200 ms, a handful.
    expect(draws.length).toBeLessThanOrEqual(5);
    const percents = [...out.text().matchAll(/\((\d+)%\)/g)].map((m) => Number(m[1]));
    expect(Math.max(...percents)).toBe(100);
    expect(draws.at(-1)).toMatch(/^backup: 200\/10 \(100%\)/);
  });
});
