import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { curlCommand, sendCommand, shellQuote } from '../../../web/src/shell.js';

/** What a shell makes of `printf %s <quoted>`: the round trip the clipboard text must survive. */
const UTF8 = { env: { ...process.env, LC_ALL: 'C.UTF-8' } };
const SHELLS = ['/usr/bin/dash', '/usr/bin/bash', '/usr/bin/zsh'].filter((path) => existsSync(path));
const echo = (shell: string, quoted: string) => execFileSync(shell, ['-c', `printf %s ${quoted}`], UTF8).toString('utf8');

describe('shellQuote', () => {
  it.each([
    ['simple', 'simple'],
    ['http://127.0.0.1:4000/webhooks', 'http://127.0.0.1:4000/webhooks'],
    ["it's", `'it'\\''s'`],
    ['$(rm -rf ~)', `'$(rm -rf ~)'`],
    // Single quotes only, never $'…' (dash has none): inert in every shell. curlCommand never
    // writes such text raw; it carries it in base64.
    ['a\u001b[2Jb', "'a\u001b[2Jb'"],
    ['x\u202Ey', "'x\u202Ey'"],
    ['', "''"],
  ])('%j → %s', (input, expected) => {
    expect(shellQuote(input)).toBe(expected);
  });

  it.each(SHELLS)('round-trips through %s', (shell) => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', "'", '"', '$', '`', '\\', '!', '\n', '\u001b', '\u0085', '\u202e', 'é', '*', ';', '=', '~'), maxLength: 12 }), (text) => {
        return echo(shell, shellQuote(text)) === text;
      }),
      { seed: 7, numRuns: 60 },
    );
  });
});

describe('curlCommand', () => {
  const headers: Array<[string, string]> = [['Host', 'x'], ['Content-Type', 'application/json'], ['X-Service-Event', "o'neil"], ['Content-Length', '2']];

  it('re-sends a one-line text body from a quoted here-document, with the headers curl does not set itself', () => {
    const cmd = curlCommand({ url: 'http://127.0.0.1:4000/webhooks', headers, text: '{"a":1}', base64: Buffer.from('{"a":1}').toString('base64'), exactBytesNeeded: false });
    expect(cmd).toBe(
      "tr -d '\\n' <<'HOOKRELAY_BODY' | curl -sS -g -X POST http://127.0.0.1:4000/webhooks \\\n  -H 'Content-Type: application/json' \\\n  -H 'X-Service-Event: o'\\''neil' \\\n  -H User-Agent: \\\n  -H Accept: \\\n  -H Expect: \\\n  --data-binary @-\n{\"a\":1}\nHOOKRELAY_BODY",
    );
  });

  it('decodes base64 from a quoted here-document when the text is not the exact bytes', () => {
    const raw = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff, 0x7d]);
    const cmd = curlCommand({ url: 'http://h/x', headers: [], text: '{\ufffd}', base64: raw.toString('base64'), exactBytesNeeded: true });
    expect(cmd).toBe(`base64 -d <<'HOOKRELAY_BODY' | curl -sS -g -X POST http://h/x \\\n  -H User-Agent: \\\n  -H Accept: \\\n  -H Content-Type: \\\n  -H Expect: \\\n  --data-binary @-\n${raw.toString('base64')}\nHOOKRELAY_BODY`);
    const decoded = execFileSync('dash', ['-c', cmd.replace(/ \| curl[^]*--data-binary @-/, '')], UTF8);
    expect(decoded.equals(raw)).toBe(true);
  });

  it('never puts a raw control or bidi character on the clipboard', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, (value, body) => {
        const cmd = curlCommand({ url: 'http://h/x', headers: [['x-h', value]], text: body, base64: '', exactBytesNeeded: false });
        return !/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/.test(cmd) && !cmd.includes("$'");
      }),
      { seed: 7, numRuns: 150 },
    );
  });
});

describe('sendCommand', () => {
  it('is the documented first command', () => {
    expect(sendCommand('http://127.0.0.1:4000/webhooks')).toBe('npx hookrelay send --to http://127.0.0.1:4000/webhooks --trigger trustcenter.access_requested');
  });
});
