import { describe, expect, it } from 'vitest';
import { asciiOnly, escapeForReading } from '../../src/core/printable-text.js';

describe('escapeForReading', () => {
  it('escapes what could drive a terminal or reorder a line, keeps the rest, and cuts with …', () => {
    expect(escapeForReading('a\u001b[31mb\u202ec\u2028d\u061ce é ☃')).toBe('a\\u001b[31mb\\u202ec\\u2028d\\u061ce é ☃');
    expect(escapeForReading('abcdef', 4)).toBe('abc…');
    expect(escapeForReading('abcd', 4)).toBe('abcd');
  });
});

describe('asciiOnly', () => {
  it('keeps printable ASCII only, and cuts', () => {
    expect(asciiOnly('a\r\nb é ☃')).toBe('a??b ? ?');
    expect(asciiOnly('abcdef', 3)).toBe('abc');
  });
});
