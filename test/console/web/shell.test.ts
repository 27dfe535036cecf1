import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curlCommand, sendCommand, shellQuote } from '../../../web/src/shell.js';

/** What bash makes of `printf %s <quoted>`: the round trip the clipboard text must survive. */
const UTF8 = { env: { ...process.env, LC_ALL: 'C.UTF-8' } };
const bashEcho = (quoted: string) => execFileSync('bash', ['-c', `printf %s ${quoted}`], UTF8).toString('utf8');

describe('shellQuote', () => {
  it.each([
    ['simple', 'simple'],
    ['http://127.0.0.1:4000/webhooks', 'http://127.0.0.1:4000/webhooks'],
    ["it's", `'it'\\''s'`],
    ['$(rm -rf ~)', `'$(rm -rf ~)'`],
    ['a\u001b[2Jb', "$'a\\x1b[2Jb'"],
    ['x\u202Ey', "$'x\\u202ey'"],
    ['', "''"],
  ])('%j → %s', (input, expected) => {
    expect(shellQuote(input)).toBe(expected);
  });

  it('never puts a raw control or bidi character on the clipboard', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => !/[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/.test(shellQuote(text))),
      { seed: 7, numRuns: 150 },
    );
  });

  it('round-trips through bash', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', "'", '"', '$', '`', '\\', '!', '\n', '\u001b', '\u202e', 'é', '*', ';'), maxLength: 12 }), (text) => {
        fc.pre(!text.includes('\u0000'));
        return bashEcho(shellQuote(text)) === text;
      }),
      { seed: 7, numRuns: 60 },
    );
  });
});

describe('curlCommand', () => {
  const headers: Array<[string, string]> = [['Host', 'x'], ['Content-Type', 'application/json'], ['X-Service-Event', "o'neil"], ['Content-Length', '2']];

  it('re-sends the text body with the headers curl does not set itself', () => {
    const cmd = curlCommand({ url: 'http://127.0.0.1:4000/webhooks', headers, text: '{"a":1}', base64: '', exactBytesNeeded: false });
    expect(cmd).toBe(
      "curl -sS -X POST http://127.0.0.1:4000/webhooks \\\n  -H 'Content-Type: application/json' \\\n  -H 'X-Service-Event: o'\\''neil' \\\n  --data-binary '{\"a\":1}'",
    );
  });

  it('decodes base64 when the text is not the exact bytes', () => {
    const raw = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff, 0x7d]);
    const cmd = curlCommand({ url: 'http://h/x', headers: [], text: '{�}', base64: raw.toString('base64'), exactBytesNeeded: true });
    expect(cmd.startsWith(`printf %s ${raw.toString('base64')} | base64 -d | curl`)).toBe(true);
    expect(cmd.endsWith('--data-binary @-')).toBe(true);
    const decoded = execFileSync('bash', ['-c', cmd.split(' | curl')[0]!], UTF8);
    expect(decoded.equals(raw)).toBe(true);
  });
});

describe('sendCommand', () => {
  it('is the documented first command', () => {
    expect(sendCommand('http://127.0.0.1:4000/webhooks')).toBe('npx hookrelay send --to http://127.0.0.1:4000/webhooks --trigger trustcenter.access_requested');
  });
});
