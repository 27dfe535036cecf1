/**
 * With `--json`, a run that fails also prints ONE JSON object on stderr, after the text it printed
 * there, so a script or an agent reads why without parsing prose (docs/exit-codes.md):
 *
 *   {"error":{"code":"usage","exitCode":2,"message":"no database at …","problems":[…],"hint":"…"}}
 *
 * "Fails" is an exit of 2 (usage), 3 (could not run) or 130 (interrupted); 1 is a finding, which the
 * command's own JSON on stdout reports. The message is what the command said on stderr (its last
 * `hookrelay: …` line that is not a warning, and the `  - …` lines of a list of problems), so a
 * command needs no second way to say it; every command's messages are already free of secrets, and so
 * is this object. A command whose `--json` failure is already a JSON document on stderr (`send` and
 * `schedule` write the service's error envelope) gets no second one. Written as the process exits, so
 * `process.exit` (a second Ctrl-C) is covered; a process killed by a signal writes nothing.
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

/** What is kept of a run's stderr: its end (a long job's progress lines come before its error). */
const KEEP_CHARS = 64 * 1024;
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g');

/** Keeps the end of what is written to `stream` (still written as before) and, at exit, writes the object for a failed run. */
export function watchFailures(command: string | undefined, stream: NodeJS.WriteStream = process.stderr): void {
  let kept = '';
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    kept += typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    if (kept.length > 2 * KEEP_CHARS) kept = kept.slice(-KEEP_CHARS);
    return write(chunk, ...rest);
  }) as typeof stream.write;
  process.once('exit', (exitCode) => {
    stream.write = write as typeof stream.write;
    const code = CODES.get(exitCode);
    if (!code || isJsonDocument(kept)) return;
    write(`${JSON.stringify({ error: failureOf(kept, code, exitCode, command) })}\n`);
  });
}

function isJsonDocument(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

// `hookrelay: …`, a command's own `hookrelay check: …` or `hookrelay mcp: …`, or commander's `error: …`.
const MESSAGE = /^(hookrelay(?: [a-z-]+)?|error): (?!warning:)/;

/** The object for what was written: the last `hookrelay: …` or commander `error: …` line, its list of problems, a hint. */
export function failureOf(text: string, code: JsonFailure['code'], exitCode: number, command: string | undefined): JsonFailure {
  const lines = text.replace(ANSI, '').split(/\r?\n|\r/);
  let at = -1;
  for (let i = lines.length - 1; i >= 0 && at < 0; i--) if (MESSAGE.test(lines[i]!)) at = i;
  const message = at >= 0 ? lines[at]!.replace(/^(hookrelay(?: [a-z-]+)?|error): /, '') : code === 'interrupted' ? 'interrupted' : 'failed';
  const problems: string[] = [];
  for (let i = at + 1; at >= 0 && i < lines.length && lines[i]!.startsWith('  - '); i++) problems.push(lines[i]!.slice(4));
  const failure: JsonFailure = { code, exitCode, message: message.replace(/:$/, '') };
  if (problems.length > 0) failure.problems = problems;
  if (code === 'usage') failure.hint = `hookrelay ${command ? `${command} ` : ''}--help lists the flags`;
  return failure;
}
