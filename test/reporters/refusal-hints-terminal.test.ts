/** The pretty terminal prints a refusal's hints under its line, each once a minute, made printable. */
import { describe, expect, it } from 'vitest';
import { attachTerminalReporter, hintLines, HINT_REPEAT_MS } from '../../src/reporter/terminal-reporter.js';
import { createEventHub } from '../../src/runtime/event-hub.js';
import type { AttemptRecord } from '../../src/store/store.js';

const rejected = (hints?: string[]): AttemptRecord =>
  ({ seq: 1, receivedAt: 0, outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH', trigger: 't', deliveryId: 'd', attemptHeader: '1', retryAfter: null, ...(hints ? { hints } : {}) }) as unknown as AttemptRecord;

describe('hintLines', () => {
  it('prints each hint indented, not again within HINT_REPEAT_MS, and again after it', () => {
    const seen = new Map<string, number>();
    expect(hintLines(rejected(['use the same secret', 'a second']), seen, 1000)).toEqual(['    ↳ use the same secret', '    ↳ a second']);
    expect(hintLines(rejected(['use the same secret']), seen, 1000 + HINT_REPEAT_MS - 1)).toEqual([]);
    expect(hintLines(rejected(['use the same secret']), seen, 1000 + HINT_REPEAT_MS)).toEqual(['    ↳ use the same secret']);
  });

  it('nothing for a refusal without hints, or for an accepted attempt that has some', () => {
    expect(hintLines(rejected(), new Map(), 0)).toEqual([]);
    expect(hintLines({ ...rejected(['x']), outcome: 'accepted' } as AttemptRecord, new Map(), 0)).toEqual([]);
  });

  it('a hint that quotes hostile bytes is printable', () => {
    const [line] = hintLines(rejected(['x-service-delivery is "\u001b[31mred\u202e"']), new Map(), 0);
    expect(line).toBe('    ↳ x-service-delivery is "\\u001b[31mred\\u202e"');
  });
});

describe('the pretty reporter', () => {
  it('writes the hint under the refusal line', () => {
    const hub = createEventHub();
    let text = '';
    const out = { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream;
    const reporter = attachTerminalReporter(hub, { format: 'pretty', out, color: false });
    hub.emit('attempt', { attempt: rejected(['sign with the same secret']), skipVerify: false, remote: false });
    reporter.flush();
    reporter.detach();
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/400 rejected .*SIGNATURE_MISMATCH$/);
    expect(lines[1]).toBe('    ↳ sign with the same secret');
  });
});
