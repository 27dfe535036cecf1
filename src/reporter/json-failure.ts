/**
 * With `--json`, a run that fails also prints ONE JSON object on stderr, after the text it printed
 * there, so a script or an agent reads why without parsing prose (docs/exit-codes.md):
 *
 *   {"error":{"code":"usage","exitCode":2,"message":"no database at …","problems":[…],"hint":"…"}}
 *
 * "Fails" is an exit of 2 (usage), 3 (could not run) or 130 (interrupted); 1 is a finding, which the
 * command's own JSON on stdout reports. The message is what the command said on stderr (its
 * `hookrelay: …` line, and the `  - …` lines of a list of problems), so a command needs no second way
 * to say it; every command's messages are already free of secrets, and so is this object.
 */
import { EXIT } from '../core/exit-codes.js';

export interface JsonFailure {
  code: 'usage' | 'could_not_run' | 'interrupted';
  exitCode: number;
  message: string;
  problems?: string[];
  hint?: string;
}

const CODES = new Map<number, JsonFailure['code']>([
  [EXIT.usage, 'usage'],
  [EXIT.couldNotRun, 'could_not_run'],
  [EXIT.interrupted, 'interrupted'],
]);

/** Past this, a run's stderr is not kept for the object (a long job's progress lines): the first message stays. */
const KEEP_CHARS = 64 * 1024;
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g');

export interface FailureWatch {
  /** Writes the object when `exitCode` is a failure's; nothing otherwise. */
  finish(exitCode: number, command: string | undefined): void;
}

/** Starts keeping what is written to `stream` (it is still written as before). */
export function watchFailures(stream: NodeJS.WriteStream = process.stderr): FailureWatch {
  let kept = '';
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (kept.length < KEEP_CHARS) kept += typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    return write(chunk, ...rest);
  }) as typeof stream.write;
  return {
    finish(exitCode, command) {
      stream.write = write as typeof stream.write;
      const code = CODES.get(exitCode);
      if (!code) return;
      write(`${JSON.stringify({ error: failureOf(kept, code, exitCode, command) })}\n`);
    },
  };
}

/** The object for what was written: the first `hookrelay: …` or commander `error: …` line, its list of problems, a hint. */
export function failureOf(text: string, code: JsonFailure['code'], exitCode: number, command: string | undefined): JsonFailure {
  const lines = text.replace(ANSI, '').split(/\r?\n|\r/);
  const at = lines.findIndex((line) => /^(hookrelay|error): /.test(line));
  const message = at >= 0 ? lines[at]!.replace(/^(hookrelay|error): /, '') : code === 'interrupted' ? 'interrupted' : 'failed';
  const problems: string[] = [];
  for (let i = at + 1; at >= 0 && i < lines.length && lines[i]!.startsWith('  - '); i++) problems.push(lines[i]!.slice(4));
  const failure: JsonFailure = { code, exitCode, message: message.replace(/:$/, '') };
  if (problems.length > 0) failure.problems = problems;
  if (code === 'usage') failure.hint = `hookrelay ${command ? `${command} ` : ''}--help lists the flags`;
  return failure;
}
