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

  it('escapes a control character in the tail (a secret read from a file with its newline) instead of printing it raw', () => {
    expect(secretHint('whsec_0123456789abcdefXYZ\n')).toBe('whsec_…XYZ\\u000a');
    expect(secretHint('whsec_0123456789abcdef\u001b[2J')).toBe('whsec_…\\u001b[2J');
  });

  it('holds no control character, whatever the secret ends with', () => {
    for (const end of ['\n', '\r\n', '\t', '\u0000', '\u007f', '\u009b', '\u2028', '\u202e']) {
      expect(secretHint(`whsec_${'b'.repeat(30)}${end}`)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
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
