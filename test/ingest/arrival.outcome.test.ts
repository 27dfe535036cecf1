/** The Outcome (arrival.ts): the receiver's own JSON answer and the content type it goes out with. */
import { describe, expect, it } from 'vitest';
import { JSON_TYPE, jsonAnswer, type Action, type Outcome } from '../../src/ingest/arrival.js';
import type { AttemptRecord } from '../../src/store/store.js';

describe('jsonAnswer', () => {
  it.each([
    [200, '{"success":true}'],
    [400, '{"success":false,"code":"INVALID_JSON"}'],
    [503, '{"success":false,"code":"STORE_UNAVAILABLE"}'],
  ])('is an answer with status %d and the body as given', (status, body) => {
    expect(jsonAnswer(status, body)).toEqual({ kind: 'answer', status, body });
  });

  it('makes a new action each time (an adapter may not share one between requests)', () => {
    const a = jsonAnswer(200, '{}');
    const b = jsonAnswer(200, '{}');
    expect(a).not.toBe(b);
    expect(a).toEqual(b);
  });
});

describe('JSON_TYPE', () => {
  it('is JSON in UTF-8', () => {
    expect(JSON_TYPE).toBe('application/json; charset=utf-8');
  });
});

describe('Outcome', () => {
  it('pairs an action with the promise of its record', async () => {
    const record = { seq: 0, outcome: 'rejected', status: 400 } as AttemptRecord;
    const action: Action = jsonAnswer(400, '{}');
    const outcome: Outcome = { action, recorded: Promise.resolve(record) };
    expect(outcome.action).toMatchObject({ kind: 'answer', status: 400 });
    expect(await outcome.recorded).toBe(record);
  });
});
