import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { secretHint, secretRedactor } from '../../src/core/secret-hint.js';
import { VERSION } from '../../src/runtime/version.js';

describe('secretHint', () => {
  it.each([
    ['whsec_0123456789abcdefXYZW', 'whsec_…XYZW'],
    ['whsec_short', 'whsec_…'],
    ['wrongsecret', '…'],
    ['fifteen-chars-x', '…'],
    ['sixteen-chars-xy', '…s-xy'],
    ['', '…'],
  ])('%s → %s', (secret, hint) => {
    expect(secretHint(secret)).toBe(hint);
  });

  it('never shows more than 4 characters of a secret beyond the public whsec_ prefix', () => {
    for (const secret of ['a'.repeat(16), `whsec_${'b'.repeat(40)}`, 'x'.repeat(200)]) {
      const shown = secretHint(secret).replace(/^whsec_/, '').replace('…', '');
      expect(shown.length).toBeLessThanOrEqual(4);
    }
  });
});

describe('secretRedactor', () => {
  it('replaces every secret by its hint, ignores empty secrets, and prefers the longer of two overlapping ones', () => {
    const redact = secretRedactor(['', 'whsec_0123456789abcdefXYZW', 'whsec_0123456789abcdefXYZW_rotated']);
    expect(redact('a whsec_0123456789abcdefXYZW_rotated and whsec_0123456789abcdefXYZW')).toBe('a whsec_…ated and whsec_…XYZW');
    expect(redact('nothing here')).toBe('nothing here');
  });
});

describe('VERSION', () => {
  it('is the version in package.json', () => {
    expect(VERSION).toBe((JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version);
  });
});
