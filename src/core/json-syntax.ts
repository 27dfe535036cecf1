/**
 * Why a text is not JSON, in words that quote none of it: V8's message carries the start of the
 * text (`Unexpected token 'w', "{"secret": whsec_…"... is not valid JSON`), and a config file's
 * text may hold a secret. The reason, and the line and column when V8 gives a position.
 */
export function jsonSyntaxProblem(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  const position = /\bat position (\d+)/.exec(message);
  const reason = message
    .replace(/, (?:\.\.\.)?"[\s\S]*$/, '')
    .replace(/^Unexpected token '[\s\S]*?'$/, 'an unexpected character (not a quoted string, number, true, false or null)')
    .replace(/ in JSON at position \d+[\s\S]*$/, '')
    .replace(/ at position \d+[\s\S]*$/, '');
  if (position === null) return reason;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${reason} at line ${line}, column ${column}`;
}
