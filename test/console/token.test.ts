import { describe, expect, it } from 'vitest';
import { tokenFromHeaders, tokenFromUpgrade, tokenMatches } from '../../src/console/token.js';

describe('tokenMatches', () => {
  it.each([
    ['tok_12345678', true],
    ['tok_1234567', false],
    ['tok_123456789', false],
    ['TOK_12345678', false],
    ['', false],
    [undefined, false],
    [null, false],
    ['x'.repeat(2000), false],
  ])('%j → %s', (given, expected) => {
    expect(tokenMatches('tok_12345678', given)).toBe(expected);
  });
});

describe('where the token is read from', () => {
  it.each([
    [{ 'x-hookrelay-token': 'a' }, 'a'],
    [{ authorization: 'Bearer b' }, 'b'],
    [{ authorization: 'bearer  c ' }, 'c'],
    [{ authorization: 'Basic d' }, undefined],
    [{}, undefined],
  ])('API headers %j → %j', (headers, expected) => {
    expect(tokenFromHeaders(headers)).toBe(expected);
  });

  it.each([
    [{ 'sec-websocket-protocol': 'hookrelay.v1, hookrelay.token.abc' }, '', 'abc'],
    [{ 'sec-websocket-protocol': 'hookrelay.v1' }, 'token=q', 'q'],
    [{}, '', undefined],
  ])('upgrade %j ?%s → %j', (headers, query, expected) => {
    expect(tokenFromUpgrade(headers, new URLSearchParams(query))).toBe(expected);
  });
});
