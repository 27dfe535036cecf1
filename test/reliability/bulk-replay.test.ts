/**
 * Issue 39's bound: a bulk replay of 10,000 deliveries, killed with SIGKILL twice mid-job, resumed:
 * every delivery reaches the app, marked with the job; a copy goes twice only where a kill left it
 * in flight (the app had it, its record did not land), at most the concurrency per kill.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { killTwiceAndResume, seededDeliveries } from '../helpers/bulk-replay-kills.js';
import { tempDir } from '../helpers/temp-dir.js';

const DELIVERIES = 10_000;
const CONCURRENCY = 8;

describe('bulk replay killed twice', () => {
  it('resumes and hands each of 10,000 deliveries on, none twice but those in flight at a kill', async () => {
    const started = Date.now();
    const { dir, remove } = tempDir();
    onTestFinished(remove);
    const { db, ids } = await seededDeliveries(dir, DELIVERIES);
    const outcome = await killTwiceAndResume({ db, dir, ids, concurrency: CONCURRENCY, killAfter: [2_500, 4_000] });
    console.log(`RELIABILITY ${JSON.stringify({ scenario: 'bulk replay killed twice', deliveries: DELIVERIES, kills: 2, sentTwice: outcome.sentTwice, maxCopies: outcome.maxCopies, seconds: Math.round((Date.now() - started) / 100) / 10 })}`);
    expect(outcome.lastRun.code).toBe(0);
    expect(outcome.lastRun.stdout).toMatch(/: 10,000 deliveries, 10,000 handed on, 0 failed/);
    expect(outcome.allArrived).toBe(true);
    expect(outcome.sentTwice).toBeLessThanOrEqual(2 * CONCURRENCY);
    expect(outcome.maxCopies).toBeLessThanOrEqual(2);
    expect(outcome.jobHeaders).toEqual([outcome.jobId]);
  }, 300_000);
});
