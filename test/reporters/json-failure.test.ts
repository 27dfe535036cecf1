/** With --json, a failed run ends its stderr with one JSON error object (issue 42, item 2); a finding or a success does not. */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { failureOf } from '../../src/reporter/json-failure.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const lastLine = (text: string) => JSON.parse(text.trimEnd().split('\n').at(-1)!) as { error: Record<string, unknown> };

describe('the JSON error object', () => {
  it("reads the command's own message, its list of problems, and adds a hint to a usage error", () => {
    const text = '\u001b[33mwarning\u001b[0m\nhookrelay: 2 problems with the settings:\n  - --limit: bad\n  - --since: worse\nmore text\n';
    expect(failureOf(text, 'usage', 2, 'events list')).toEqual({
      code: 'usage', exitCode: 2, message: '2 problems with the settings', problems: ['--limit: bad', '--since: worse'], hint: 'hookrelay events list --help lists the flags',
    });
    expect(failureOf("error: unknown option '--jsn'\n(run with --help for usage)\n", 'usage', 2, undefined)).toMatchObject({ message: "unknown option '--jsn'", hint: 'hookrelay --help lists the flags' });
    expect(failureOf('', 'interrupted', 130, 'events replay')).toEqual({ code: 'interrupted', exitCode: 130, message: 'interrupted' });
    // The last message, not a warning before it nor progress lines.
    const long = `hookrelay: warning: --secret as a flag shows in ps\n${'replay rj_x: 1/2 (50%)\r'.repeat(5000)}hookrelay: could not record a try: disk full\n`;
    expect(failureOf(long, 'could_not_run', 3, 'events replay')).toEqual({ code: 'could_not_run', exitCode: 3, message: 'could not record a try: disk full' });
  });

  it('ends a usage error and a could-not-run with it, never with a password, and leaves success and text mode alone', async () => {
    const { dir, remove } = tempDir();
    onTestFinished(remove);
    const missing = await runCli(['status', '--db', join(dir, 'nope.db'), '--json']);
    expect(missing.code).toBe(2);
    expect(lastLine(missing.stderr).error).toMatchObject({ code: 'usage', exitCode: 2, message: expect.stringContaining('no database at'), hint: 'hookrelay status --help lists the flags' });

    const flag = await runCli(['db', 'stats', '--json', '--bogus']);
    expect(flag.code).toBe(2);
    expect(lastLine(flag.stderr).error).toMatchObject({ code: 'usage', message: "unknown option '--bogus'", hint: 'hookrelay db stats --help lists the flags' });

    const unreachable = await runCli(['status', '--json', '--store', 'postgres://app:hunter2-secret@127.0.0.1:1/hookrelay']);
    expect(unreachable.code).toBe(3);
    expect(lastLine(unreachable.stderr).error).toMatchObject({ code: 'could_not_run', exitCode: 3 });
    expect(unreachable.stderr).not.toContain('hunter2');

    // A command whose --json failure is already one JSON document (the service's error envelope) gets no second one.
    const schedule = await runCli(['schedule', '--max-attempts', '0', '--json']);
    expect(schedule.code).toBe(2);
    expect(JSON.parse(schedule.stderr)).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });

    // Without --json: text only.
    const text = await runCli(['status', '--db', join(dir, 'nope.db')]);
    expect(text.code).toBe(2);
    expect(text.stderr).not.toContain('{"error"');
  });
});

describe('a command that names itself in its message', () => {
  it('reads `hookrelay check: …` and `hookrelay mcp: …` lines as the message, with their problems', () => {
    const failure = failureOf('hookrelay check: a problem with the settings:\n  - --since: not a duration\n', 'usage', 2, 'check');
    expect(failure).toMatchObject({ code: 'usage', exitCode: 2, message: 'a problem with the settings', problems: ['--since: not a duration'] });
    expect(failureOf('hookrelay mcp: no database at /x.db\n', 'usage', 2, 'mcp').message).toBe('no database at /x.db');
    expect(failureOf('hookrelay check: warning: old file\nhookrelay: the store is busy\n', 'could_not_run', 3, 'check').message).toBe('the store is busy');
  });
});
