import { describe, expect, it } from 'vitest';
import { answerView, bodyView, MAX_DETAIL_ANSWERS, rawFileName, redactUrl, relayDetailViews, statusView } from '../../src/console/views.js';
import type { RelayRecordView } from '../../src/console/console-options.js';
import type { ConsoleStatus } from '../../src/console/console-options.js';

describe('bodyView', () => {
  it('flags a BOM and invalid UTF-8, decodes leniently and keeps the exact bytes', () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const view = bodyView(raw);
    expect(view).toMatchObject({ bytes: raw.length, bom: true, invalidUtf8: true, inline: true });
    expect(view.text).toBe('{"a":"\uFFFD\uFFFD"}');
    expect(Buffer.from(view.base64, 'base64').equals(raw)).toBe(true);
    // The view survives JSON serialisation unchanged.
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
  });

  it('flags nothing on clean UTF-8', () => {
    expect(bodyView(Buffer.from('{"name":"Zoë"}'))).toMatchObject({ bom: false, invalidUtf8: false, text: '{"name":"Zoë"}' });
  });
});

describe('redactUrl', () => {
  it.each([
    ['http://user:pw@host/x', 'http://[redacted]@host/x'],
    ['http://token@host/', 'http://[redacted]@host/'],
    ['http://host:3000/x?y=1', 'http://host:3000/x?y=1'],
    ['::::', '::::'],
    [null, null],
  ])('%j → %j', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });
});

describe('statusView', () => {
  it('keeps only the listed fields', () => {
    const status = { version: '1', receiverUrl: 'http://127.0.0.1:4000/webhooks', path: '/webhooks', secretHints: ['whsec…ab'], skipVerify: false, forwardTo: null, toleranceSeconds: 300, secrets: ['whsec_full'] } as ConsoleStatus;
    expect(Object.keys(statusView(status)).sort()).toEqual(['forwardTo', 'path', 'receiverUrl', 'secretHints', 'skipVerify', 'toleranceSeconds', 'version']);
    expect(JSON.stringify(statusView(status))).not.toContain('whsec_full');
  });
});

describe('rawFileName', () => {
  it.each([
    ['evt_01', 'evt_01.body'],
    ['../../etc/passwd', '_.._etc_passwd.body'],
    ['a"b\r\nc', 'a_b__c.body'],
    ['', 'delivery.body'],
    ['...', 'delivery.body'],
  ])('%j → %j', (id, expected) => {
    expect(rawFileName(id)).toBe(expected);
  });
});

describe('DEFAULT_WEB_ROOT', () => {
  it('is web/dist of this package', async () => {
    const { DEFAULT_WEB_ROOT } = await import('../../src/console/static-files.js');
    const { WEB } = await import('./helpers/web-build.js');
    expect(DEFAULT_WEB_ROOT).toBe(`${WEB}/dist`);
  });
});

describe('answerView', () => {
  it('does not call a body invalid UTF-8 because the 4 KiB cut fell inside a character; real invalid bytes still are', () => {
    const kept = Buffer.concat([Buffer.alloc(4094, 0x61), Buffer.from([0xe2, 0x82])]); // the first 2 bytes of "€"
    const cut = answerView({ headers: [], headerLines: 0, body: kept, bodyBytes: 5000, complete: true });
    expect(cut.body).toMatchObject({ bytes: 4096, invalidUtf8: false });
    expect(Buffer.from(cut.body.base64, 'base64').equals(kept)).toBe(true);
    expect(cut.body.text).toBe('a'.repeat(4094));
    const whole = answerView({ headers: [], headerLines: 0, body: kept, bodyBytes: 4096, complete: true });
    expect(whole.body.invalidUtf8).toBe(true);
    const bad = answerView({ headers: [['X', 'y']], headerLines: 3, body: Buffer.from([0x61, 0xff, 0x62]), bodyBytes: 9000, complete: false });
    expect(bad).toMatchObject({ headers: [['X', 'y']], headerLines: 3, bodyBytes: 9000, complete: false, body: { invalidUtf8: true } });
  });

  it('does not call an answer invalid UTF-8 because the target cut it off inside a character below 4 KiB (not complete), as events show does', () => {
    const kept = Buffer.from([0x61, 0x62, 0xe2, 0x82]); // "ab" and the first 2 bytes of "€"; nothing more came
    const cut = answerView({ headers: [], headerLines: 0, body: kept, bodyBytes: kept.length, complete: false });
    expect(cut.body).toMatchObject({ bytes: 4, invalidUtf8: false, text: 'ab' });
    expect(Buffer.from(cut.body.base64, 'base64').equals(kept)).toBe(true);
  });
});

describe('relayDetailViews', () => {
  const answer = (body: string, headers: Array<[string, string]> = [['Content-Type', 'text/plain']]) => ({ headers, headerLines: headers.length, body: Buffer.from(body), bodyBytes: body.length, complete: true });
  const tries = (n: number, make: (i: number) => RelayRecordView['answer']): RelayRecordView[] =>
    Array.from({ length: n }, (_, i) => ({ at: i, ok: false, status: 500, latencyMs: 1, replay: i >= 15, answer: make(i) }));

  it('sends the answers of the newest 20 tries; each older try has none and says it was left out', () => {
    const views = relayDetailViews(tries(45, (i) => answer(`try ${i}`)));
    expect(views).toHaveLength(45);
    const shown = views.filter((v) => v.answer);
    expect(shown).toHaveLength(MAX_DETAIL_ANSWERS);
    expect(shown.map((v) => v.answer!.body.text)).toEqual(Array.from({ length: 20 }, (_, i) => `try ${i + 25}`));
    expect(views.slice(0, 25).every((v) => v.answer === null && v.answerLeftOut === true)).toBe(true);
    expect(views.slice(25).every((v) => !('answerLeftOut' in v))).toBe(true);
  });

  it('stops at the byte budget too, newest first, none skipped; a try with no answer is not left out and takes no room', () => {
    const big = (i: number): Array<[string, string]> => Array.from({ length: 100 }, (_, n) => [`X-${n}`, `${i}`.padEnd(2000, 'v')]);
    // About 200 KiB of header lines each: 5 fit in 1 MiB.
    const views = relayDetailViews(tries(12, (i) => (i % 2 === 1 ? null : answer(`try ${i}`, big(i)))));
    expect(views.map((v) => (v.answerLeftOut ? 'left out' : v.answer ? 'shown' : 'none'))).toEqual([
      'left out', 'none', 'shown', 'none', 'shown', 'none', 'shown', 'none', 'shown', 'none', 'shown', 'none',
    ]);
    // Three 1-byte answers, no headers, in 2 bytes: the newest two.
    expect(relayDetailViews(tries(3, (i) => answer(`${i}`, [])), 20, 2).map((v) => v.answer?.body.text ?? null)).toEqual([null, '1', '2']);
  });
});
