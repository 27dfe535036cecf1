import { describe, expect, it } from 'vitest';
import { bridgeRetentionFloor, triggerFilter } from '../../src/store/bridge-cursors.js';

const cursor = (name: string, ackedSeq: number, updatedAt: number) => ({ name, ackedSeq, updatedAt });

describe('bridgeRetentionFloor', () => {
  it.each([
    ['no subscriber', [], undefined],
    ['the smallest cursor of those seen within the window', [cursor('a', 40, 900), cursor('b', 12, 500), cursor('c', 30, 1000)], 12],
    ['one seen exactly at the edge still counts', [cursor('a', 40, 900), cursor('b', 12, 400)], 12],
    ['one gone longer than the window holds nothing', [cursor('a', 40, 900), cursor('b', 12, 399)], 40],
    ['all gone: no floor', [cursor('b', 12, 1)], undefined],
  ])('%s', (_, cursors, floor) => {
    expect(bridgeRetentionFloor(cursors, 1000, 600)).toBe(floor);
  });
});

describe('triggerFilter', () => {
  it('passes everything without globs, else what any glob matches', () => {
    expect(triggerFilter(undefined)).toBeNull();
    expect(triggerFilter([])).toBeNull();
    const test = triggerFilter(['vendor.*', 'a?c'])!;
    expect(['vendor.x', 'abc', 'ac', 'trustcenter.y'].map(test)).toEqual([true, true, false, false]);
  });
});
