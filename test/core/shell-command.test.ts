/**
 * Issue 13: "Copy as curl" (console) and `events export --format curl` must be safe and exact in
 * POSIX sh (dash), bash and zsh. Every hostile header and body below tries to create a marker file;
 * the commands run in real shells with `curl` replaced by a stub that records its arguments and stdin.
 * The same corpus runs through the console's curlCommand and the script `events export --format curl`
 * writes (formatExport, what the command writes to stdout).
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { deliveryItem, formatExport } from '../../src/commands/events-export.js';
import { bodyView } from '../../src/console/views.js';
import { commentText, curlCommand as coreCurlCommand, shellQuote } from '../../src/core/shell-command.js';
import type { StoredDelivery } from '../../src/store/store.js';
import { curlCommand as consoleCurlCommand } from '../../web/src/shell.js';
import { createSandbox, parseRawRequest, PASTE_SHELLS, SCRIPT_SHELLS, startRawCapture, type RawRequest, type Sandbox, type Shell, type ShellRun } from '../helpers/shell-stub.js';

const URL = 'http://127.0.0.1:4000/webhooks';
const SKIPPED = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding', 'expect', 'keep-alive']);
const MiB = 1024 * 1024;

interface Entry {
  name: string;
  url: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

/** Deterministic bytes (every value 0–255 appears), so the test needs no randomness. */
function pseudoRandomBytes(length: number, seed = 13): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Hostile headers and bodies; each tries `touch <marker>`. */
function corpus(marker: string): Entry[] {
  const T = `touch ${marker}`;
  const base: Array<[string, string]> = [
    ['Host', 'example.test'],
    ['Content-Type', 'application/json'],
    ['Content-Length', '999'],
    ['X-Service-Delivery', 'evt_1'],
  ];
  const json = Buffer.from('{"ok":true}');
  const header = (name: string, value: string, label = name): Entry => ({ name: `header ${label}`, url: URL, headers: [...base, [name, value]], body: json });
  const body = (label: string, bytes: Buffer | string): Entry => ({ name: `body ${label}`, url: URL, headers: base, body: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'utf8') });

  const headers: Entry[] = [
    header('x-quote', `it's'; ${T}; #`),
    header('x-backslash', `a\\'; ${T}; #\\`),
    header('x-subst', `$(${T}) \`${T}\` \${HOME:-$(${T})} "$(${T})"`),
    header('x-newline', `a\n${T}\n`),
    header('x-cr', `a\r'; ${T}; #\r\n`),
    header('x-nul', `a\u0000'; ${T}; #`),
    header('x-shell-6', `\u0085'; ${T}; #`, 'U+0085 (the issue)'),
    header('x-c1', `\u009b31m\u0080\u009f'; ${T}; #`),
    header('x-bidi', `\u202e'; ${T}; #\u2066x\u2069\u200f`),
    header('x-emoji', `😀 \u{1F468}\u200D\u{1F469} '; ${T}; #`),
    header('x-controls', `a\tb\u001b[2J\u007f\u2028\ufeff'; ${T}`),
    header('x-history', `!! !$ !-1 ^a^b '; ${T}; #`),
    header('x-glob', `* ? [a] ~ =ls {a,b} ~root`),
    header('x-empty', ''),
    header('x-blank', ' \t '),
    header(`x-'$(${T})\``, 'v', 'hostile name'),
    header('x-delim', `a\nHOOKRELAY_VALUE\n${T}\nHOOKRELAY_BODY\nprintf .)\n`),
    header('x-surrogate', `a\ud800b'; ${T}`),
    header(`@${marker}`, 'x', 'name starting with @'),
    header('x-latin1', 'caf\u00e9 \u00ff'),
    // What Node stores for the UTF-8 bytes of `café`: one code unit per byte (latin1).
    header('x-utf8-bytes', 'caf\u00c3\u00a9'),
    header('x-mixed', 'caf\u00e9 \u202e'),
  ];
  const bodies: Entry[] = [
    body('JSON with quotes and substitutions', `{"q":"it's '; ${T}; # $(${T}) \`${T}\` \\\\ \\" !! !$"}`),
    body('U+202E (the issue)', `\u202e'; ${T}; #`),
    body('U+0085', `\u0085'; ${T}; #`),
    body('U+2066', `\u2066'; ${T}; #\u2069`),
    body('newlines and the delimiter', `{"a":1}\nHOOKRELAY_BODY\n${T}\n`),
    body('the delimiter alone', 'HOOKRELAY_BODY'),
    body('CR', `a\r\n${T}\r`),
    body('NUL', `a\u0000'; ${T}; #\u0000`),
    body('tab', 'a\tb'),
    body('emoji', `{"e":"😀 \u{1F468}\u200D\u{1F469}"}`),
    body('BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"a":"'; ${T}; #"}`)])),
    body('invalid UTF-8', Buffer.concat([Buffer.from([0xff, 0xfe, 0x80, 0xc3]), Buffer.from(`'; ${T}; #`), Buffer.from([0xed, 0xa0, 0x80, 0x00])])),
    body('trailing newline', '{"a":1}\n'),
    body('empty', ''),
    body('backslashes', `\\\\'\\'"\\"; ${T}`),
    body('1 MiB of ASCII text', `{"pad":"${`'; ${T}; # $(${T}) `.repeat(Math.ceil(MiB / 40))}"}`.slice(0, MiB)),
    body('1 MiB of bytes', pseudoRandomBytes(MiB)),
  ];
  const everything: Entry = {
    name: 'everything at once, with a hostile URL',
    url: `${URL}?a=1&b='$(${T})'#\u202e`,
    headers: [...base, ...headers.flatMap((e) => e.headers.slice(base.length))],
    body: Buffer.from(`\u202e'; ${T}; #\u0000\u0085`),
  };
  const glob: Entry = { name: 'URL with curl glob characters', url: `${URL}/{a,b}/[1-2]?x={y}`, headers: base, body: json };
  return [...headers, ...bodies, everything, glob];
}

/** Headers the command leaves out: curl's own, and those no command line can carry. */
const carried = ([name, value]: readonly [string, string]) =>
  !SKIPPED.has(name.toLowerCase()) && !`${name}${value}`.includes('\u0000') && !/[\ud800-\udfff]/.test(`${name}${value}`.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')) && !name.startsWith('@');

/**
 * The bytes a header name or value stands for. Node's parser reads header bytes as latin1, so a
 * string whose code units are all ≤ 0xFF is one byte per code unit; a code unit above 0xFF cannot
 * come from a real request, and such a string is sent as UTF-8.
 */
const headerBytes = (text: string) => Buffer.from(text, /[^\u0000-\u00ff]/.test(text) ? 'utf8' : 'latin1');

/** What curl must receive, worked out here rather than taken from the code under test. */
function expectedArgs(entry: Entry): Buffer[] {
  const args: Buffer[] = ['-sS', '-g', '-X', 'POST', entry.url].map((a) => Buffer.from(a, 'utf8'));
  const kept = entry.headers.filter(carried);
  for (const [name, value] of kept) {
    const line = /^[ \t]*$/.test(value) ? [headerBytes(name), Buffer.from(';')] : [headerBytes(name), Buffer.from(': '), headerBytes(value)];
    args.push(Buffer.from('-H'), Buffer.concat(line));
  }
  // curl's own User-Agent, Accept and Content-Type are removed unless the request had them; its Expect always.
  for (const name of ['User-Agent', 'Accept', 'Content-Type']) {
    if (!kept.some(([n]) => n.toLowerCase() === name.toLowerCase())) args.push(Buffer.from('-H'), Buffer.from(`${name}:`));
  }
  args.push(Buffer.from('-H'), Buffer.from('Expect:'));
  args.push(Buffer.from('--data-binary'), Buffer.from('@-'));
  return args;
}

const delivery = (entry: Entry): StoredDelivery => ({
  seq: 1, id: `evt_${entry.name}`, trigger: 'vendor.rating_dropped', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: 1_763_719_200_000,
  rawBody: entry.body, signature: 'valid', secretIndex: 0, signatureTimestamp: 1_763_719_200, duplicateCount: 0, lastAttemptAt: 0, headers: entry.headers,
});

/** The script `events export --format curl --url <url>` (no --include-signature) writes for these stored deliveries. */
const exportedCurl = (entries: readonly Entry[], url: string) => formatExport('curl', entries.map(delivery).map(deliveryItem), url, { includeSignature: false }).toString();

interface Producer {
  name: string;
  make: (entry: Entry) => string;
}
const PRODUCERS: Producer[] = [
  {
    // Exactly what the page passes: the control API's body view of the stored bytes.
    name: 'console curlCommand',
    make: (entry) => {
      const view = bodyView(entry.body);
      return consoleCurlCommand({ url: entry.url, headers: entry.headers, text: view.text, base64: view.base64, exactBytesNeeded: view.bom || view.invalidUtf8 });
    },
  },
  { name: 'events export --format curl', make: (entry) => exportedCurl([entry], entry.url) },
];

const show = (b: Buffer) => JSON.stringify(b.length > 120 ? `${b.subarray(0, 60).toString('latin1')}…(${b.length} bytes)` : b.toString('latin1'));

/** Everything wrong with one run, as readable lines (empty: exact and safe). */
function problems(entry: Entry, run: ShellRun, sandbox: Sandbox): string[] {
  const out: string[] = [];
  if (run.markerExists) out.push(`${entry.name}: the injected command ran (${sandbox.marker} exists)`);
  if (run.calls.length !== 1) {
    out.push(`${entry.name}: curl ran ${run.calls.length} times (exit ${run.code}; ${run.stderr.trim().split('\n').slice(-2).join(' | ')})`);
    return out;
  }
  const call = run.calls[0]!;
  const want = expectedArgs(entry);
  const same = call.args.length === want.length && call.args.every((a, i) => a.equals(want[i]!));
  if (!same) out.push(`${entry.name}: arguments differ: got [${call.args.map(show).join(', ')}], want [${want.map(show).join(', ')}]`);
  if (!call.stdin.equals(entry.body)) out.push(`${entry.name}: body differs: got ${show(call.stdin)}, want ${show(entry.body)}`);
  return out;
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

const sandboxes: Sandbox[] = [];
afterEach(() => {
  for (const s of sandboxes.splice(0)) s.remove();
});
const sandbox = () => {
  const s = createSandbox();
  sandboxes.push(s);
  return s;
};

/** Runs every corpus entry, each in its own folder and shell process, and collects what went wrong. */
async function runCorpus(producer: Producer, shell: Shell): Promise<string[]> {
  const found: string[] = [];
  // Nobody pastes a megabyte into a terminal, and an interactive bash reads it a byte at a time.
  const indexes = corpus('/x').flatMap((e, i) => (shell.interactive && e.body.length > 64 * 1024 ? [] : [i]));
  await eachLimited(indexes, 4, async (i) => {
    const box = sandbox();
    const entry = corpus(box.marker)[i]!;
    const run = await box.run(shell, producer.make(entry));
    found.push(...problems(entry, run, box));
  });
  return found.sort();
}

describe.each(PRODUCERS)('$name', (producer) => {
  it.for(SCRIPT_SHELLS.map((s): [string, Shell] => [s.name, s]))('is exact and runs nothing injected in %s', { timeout: 120_000 }, async ([, shell], { skip }) => {
    if (!shell.path) skip(`${shell.name} is not installed`);
    expect(await runCorpus(producer, shell)).toEqual([]);
  });

  it('writes only printable ASCII, and comments that are harmless even when read as words', () => {
    for (const entry of corpus('/tmp/m')) {
      const text = producer.make(entry);
      for (const line of text.split('\n')) {
        expect(line, entry.name).toMatch(/^[\x20-\x7e]*$/);
        if (line.startsWith('#') && !line.startsWith('#!')) expect(line, entry.name).toMatch(/^# [A-Za-z0-9 .,:_/-]*$/);
      }
    }
  });

  it('names every header it leaves out in a comment', () => {
    const entry = corpus('/tmp/m').find((e) => e.name.startsWith('everything'))!;
    const text = producer.make(entry);
    for (const [name] of entry.headers.filter((h) => !carried(h) && !SKIPPED.has(h[0].toLowerCase()))) {
      expect(text).toContain(`# header ${commentText(name)} left out`);
    }
  });
});

describe('console curlCommand pasted into an interactive shell', () => {
  const [producer] = PRODUCERS;
  it.for(PASTE_SHELLS.map((s): [string, Shell] => [s.name, s]))('is exact and runs nothing injected in %s', { timeout: 120_000 }, async ([, shell], { skip }) => {
    if (!shell.path) skip(`${shell.name} is not installed`);
    expect(await runCorpus(producer!, shell)).toEqual([]);
  });
});

describe('events export --format curl with every delivery in one script', () => {
  it.for(SCRIPT_SHELLS.map((s): [string, Shell] => [s.name, s]))('re-sends each in order in %s', { timeout: 120_000 }, async ([, shell], { skip }) => {
    if (!shell.path) skip(`${shell.name} is not installed`);
    const box = sandbox();
    const entries = corpus(box.marker);
    const run = await box.run(shell, exportedCurl(entries, URL));
    expect(run.markerExists).toBe(false);
    expect(run.calls).toHaveLength(entries.length);
    const found = entries.flatMap((entry, i) => problems({ ...entry, url: URL }, { ...run, calls: [run.calls[i]!] }, box));
    expect(found).toEqual([]);
  });
});

describe('random hostile requests', () => {
  const units = ["'", '"', '\\', '$', '`', '!', '\n', '\r', '\t', '\u0000', '\u0085', '\u202e', '\u2066', '😀', 'a', ' ', '#', ';', '(', ')', '=', '~', '*', 'HOOKRELAY_BODY', 'HOOKRELAY_VALUE', 'printf .)', '%'];
  const text = fc.string({ unit: fc.constantFrom(...units), maxLength: 12 });
  const request = fc.record({
    headers: fc.array(fc.tuple(fc.constantFrom('x-a', 'x-b', 'Content-Type'), text), { maxLength: 3 }),
    body: fc.oneof(text.map((t) => Buffer.from(t, 'utf8')), fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b))),
  });
  const samples = fc.sample(request, { seed: 13, numRuns: 40 });

  it.for(SCRIPT_SHELLS.map((s): [string, Shell] => [s.name, s]))('are re-sent exactly by one script in %s', { timeout: 60_000 }, async ([, shell], { skip }) => {
    if (!shell.path) skip(`${shell.name} is not installed`);
    const box = sandbox();
    const entries: Entry[] = samples.map((s, i) => ({ name: `sample ${i}`, url: URL, headers: s.headers, body: s.body }));
    const script = entries.map((e) => coreCurlCommand({ url: e.url, headers: e.headers, body: e.body })).join('\n');
    const run = await box.run(shell, script);
    expect(run.calls).toHaveLength(entries.length);
    expect(entries.flatMap((entry, i) => problems(entry, { ...run, calls: [run.calls[i]!] }, box))).toEqual([]);
  });

  it('never put anything but printable ASCII and newlines in the command', () => {
    fc.assert(
      fc.property(request, fc.string({ unit: 'binary', maxLength: 20 }), (r, raw) => {
        const cmd = coreCurlCommand({ url: URL + raw, headers: [...r.headers, [`x-${raw}`, raw]], body: r.body });
        return /^[\x20-\x7e\n]*$/.test(cmd);
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});

describe('curlCommand run by real curl', () => {
  /** A request as bytes on the wire, with Host and Content-Length as any client sends them. */
  const wire = (target: string, headers: Array<[string, Buffer | string]>, body: Buffer): Buffer =>
    Buffer.concat([
      Buffer.from(`POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:9\r\n`),
      ...headers.map(([name, value]) => Buffer.concat([Buffer.from(`${name}: `), Buffer.isBuffer(value) ? value : Buffer.from(value), Buffer.from('\r\n')])),
      Buffer.from(`Content-Length: ${body.length}\r\n\r\n`),
      body,
    ]);
  const originals: Array<{ name: string; bytes: Buffer }> = [
    {
      name: 'glob characters in the URL, JSON body',
      bytes: wire('/hooks/{a,b}/[1-2]?x={y}&z=[3-4]', [['Content-Type', 'application/json'], ['X-Service-Delivery', 'evt_1']], Buffer.from('{"a":[1,2]}')),
    },
    {
      name: 'no User-Agent, Accept or Content-Type; header bytes beyond ASCII; 2 MiB of bytes',
      bytes: wire('/webhooks', [['X-Utf8', Buffer.from('café ☃', 'utf8')], ['X-Latin1', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x85, 0xff])]], pseudoRandomBytes(2 * MiB)),
    },
    {
      name: 'its own User-Agent, Accept and Content-Type, an empty header and a repeated one',
      bytes: wire('/webhooks?q=1', [['User-Agent', 'Service-Webhook/1'], ['Accept', 'application/json'], ['Content-Type', 'text/plain; charset=utf-8'], ['X-Empty', ''], ['X-Dup', 'one'], ['X-Dup', 'two']], Buffer.from('a\r\nb\n')),
    },
  ];

  /** What must arrive as sent: the request line, the headers other than Host and Content-Length (which curl sets), the body. */
  const comparable = (r: RawRequest) => ({
    line: r.line.toString('latin1'),
    headers: r.headers
      .filter((h) => !['host', 'content-length'].includes(h.name.toString('latin1').toLowerCase()))
      .map((h) => `${h.name.toString('latin1')}: ${h.value.toString('hex')}`)
      .sort(),
    bodyLength: r.body.length,
    body: r.body.toString('base64'),
  });

  it('sends the request line, the headers and the body of the original, once each', { timeout: 60_000 }, async () => {
    const capture = await startRawCapture();
    const box = sandbox();
    try {
      const parsed = originals.map((o) => parseRawRequest(o.bytes)!);
      // Stored as Node's parser reads them: one code unit per header byte.
      const commands = parsed.map((r) =>
        coreCurlCommand({
          url: `${capture.origin}${r.line.toString('latin1').split(' ')[1]}`,
          headers: r.headers.map((h): [string, string] => [h.name.toString('latin1'), h.value.toString('latin1')]),
          body: r.body,
        }),
      );
      const script = join(box.dir, 'replay.sh');
      writeFileSync(script, `set -e\n${commands.join('\n')}\n`);
      await promisify(execFile)('/bin/sh', [script], { cwd: box.dir, maxBuffer: 16 * MiB });
      expect(capture.requests).toHaveLength(originals.length);
      capture.requests.forEach((got, i) => expect(comparable(got), originals[i]!.name).toEqual(comparable(parsed[i]!)));
    } finally {
      await capture.close();
    }
  });
});

describe('shellQuote', () => {
  it.each([
    ['simple', 'simple'],
    ['http://127.0.0.1:4000/webhooks', 'http://127.0.0.1:4000/webhooks'],
    ["it's", `'it'\\''s'`],
    ['$(rm -rf ~)', `'$(rm -rf ~)'`],
    ['=ls', `'=ls'`],
    ['a=b', 'a=b'],
    ['~root', `'~root'`],
    ['a\u0085b', `'a\u0085b'`],
    ['', "''"],
  ])('%j → %s', (input, expected) => {
    expect(shellQuote(input)).toBe(expected);
  });

  it('never uses $\'…\' quoting, which dash does not have', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (t) => !shellQuote(t).includes("$'")), { seed: 7, numRuns: 300 });
  });
});

describe('curlCommand', () => {
  it('writes a one-line ASCII body as text, the rest of the command readable', () => {
    const cmd = coreCurlCommand({ url: URL, headers: [['Host', 'x'], ['Content-Type', 'application/json'], ['X-Service-Event', "o'neil"]], body: Buffer.from('{"a":1}') });
    expect(cmd).toBe(
      [
        `tr -d '\\n' <<'HOOKRELAY_BODY' | curl -sS -g -X POST ${URL} \\`,
        "  -H 'Content-Type: application/json' \\",
        "  -H 'X-Service-Event: o'\\''neil' \\",
        '  -H User-Agent: \\',
        '  -H Accept: \\',
        '  -H Expect: \\',
        '  --data-binary @-',
        '{"a":1}',
        'HOOKRELAY_BODY',
      ].join('\n'),
    );
  });

  it('writes any other body in base64 lines of 76 characters', () => {
    const body = pseudoRandomBytes(200);
    const lines = coreCurlCommand({ url: URL, headers: [], body }).split('\n');
    expect(lines[0]).toBe(`base64 -d <<'HOOKRELAY_BODY' | curl -sS -g -X POST ${URL} \\`);
    const b64 = lines.slice(lines.indexOf('  --data-binary @-') + 1, -1);
    expect(b64.slice(0, -1).every((l) => l.length === 76)).toBe(true);
    expect(Buffer.from(b64.join(''), 'base64').equals(body)).toBe(true);
    expect(b64.join('')).toBe(body.toString('base64'));
  });

  it.each([1, 2, 3, 56, 57, 58, 114])('encodes %i bytes as Buffer does', (n) => {
    const body = Buffer.concat([Buffer.from([0xff]), pseudoRandomBytes(n - 1, n)]);
    const lines = coreCurlCommand({ url: URL, headers: [], body }).split('\n');
    expect(lines.slice(lines.indexOf('  --data-binary @-') + 1, -1).join('')).toBe(body.toString('base64'));
  });

  it('carries a header with a control or bidi character in base64, through a variable', () => {
    const cmd = coreCurlCommand({ url: URL, headers: [['x-shell-6', "\u0085'; touch pwned; #"]], body: Buffer.from('{}') });
    expect(cmd).toContain('# header x-shell-6 holds characters other than printable ASCII: it is decoded from base64');
    // U+0085 stands for the byte 0x85 (Node reads header bytes as latin1), not its UTF-8 form C2 85.
    expect(cmd).toContain(`hookrelay_v1=$(base64 -d <<'HOOKRELAY_VALUE'\n${Buffer.from("x-shell-6: \u0085'; touch pwned; #", 'latin1').toString('base64')}\nHOOKRELAY_VALUE\nprintf .)\nhookrelay_v1=\${hookrelay_v1%.}`);
    expect(cmd).toContain('-H "$hookrelay_v1"');
    expect(cmd).not.toContain('touch');
  });
});

describe('commentText', () => {
  it.each([
    ['evt_1', 'evt_1'],
    ["d'1 $(x) `y` \u202e\n", 'd_1___x___y____'],
    ['x'.repeat(100), `${'x'.repeat(80)}...`],
  ])('%j → %s', (input, expected) => {
    expect(commentText(input)).toBe(expected);
  });
});
