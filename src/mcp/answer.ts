/**
 * How every tool answers: one JSON text, passed through
 * the server's redactor last, so no configured secret, API key or URL credential leaves in an answer
 * whatever a tool put in it; and a failure as a tool error naming its cause, never a crash.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { escapeForReading } from '../core/printable-text.js';

export type Redact = (text: string) => string;

/** A failure a tool reports as it is: bad input, an unknown id, nothing to do. */
export class ToolFailure extends Error {}

/**
 * `value` as the tool's answer, redacted: each string before it is written as JSON (a secret holding
 * a quote or a backslash would not be found in its escaped form), then the text as a whole.
 */
export function answer(redact: Redact, value: Record<string, unknown>): CallToolResult {
  const text = redact(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? redact(v) : v), 2));
  return { content: [{ type: 'text', text }] };
}

/** A tool error whose message names the cause, redacted and escaped (it may quote input). */
export function failure(redact: Redact, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: redact(escapeForReading(message, 2000)) }] };
}

/**
 * Runs a tool's work: its answer, or a tool error. A ToolFailure is said as it is; anything else
 * (an unreadable or busy store, a network error) is named as a failure to run, with its message.
 */
export async function guarded(redact: Redact, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ToolFailure) return failure(redact, err.message);
    return failure(redact, `could not run: ${(err as Error)?.message ?? String(err)}`);
  }
}
