/**
 * A refused fault rule's message with the name a mistyped one most likely meant, as the CLI
 * suggests its own names (core/closest-name.ts). The parser's message lists the names it knows;
 * the guess is made among them, so it never names one the parser would refuse.
 */
import { closestName } from '../core/closest-name.js';

const UNKNOWN_NAME: Array<{ pattern: RegExp; hint: (meant: string) => string }> = [
  // The one-line form: "unknown key 'atempt': known keys are trigger, …, id at column 5".
  { pattern: /^unknown key '([^']*)'(?=: known keys are ([^:]+?)(?: at column \d+)?$)/, hint: (meant) => ` (did you mean '${meant}'?)` },
  // The JSON form: "limt is not allowed (allowed: id, match, answer, limit, beforeVerify)".
  { pattern: /^(\S+) is not allowed(?= \(allowed: ([^)]+)\)$)/, hint: (meant) => `, did you mean '${meant}'?` },
];

/** `message` with "did you mean '…'?" after the unknown name, when a known one is close (at most 2 edits). */
export function withSuggestion(message: string): string {
  if (message.includes('did you mean')) return message;
  for (const { pattern, hint } of UNKNOWN_NAME) {
    const match = pattern.exec(message);
    if (!match) continue;
    const meant = closestName(match[1]!, match[2]!.split(',').map((name) => name.trim()));
    return meant === null ? message : `${match[0]}${hint(meant)}${message.slice(match[0].length)}`;
  }
  return message;
}
