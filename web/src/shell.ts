/**
 * Shell commands the page offers to copy (copy as curl, the empty state's `hookrelay send`). Pure.
 * The quoting and the curl command come from src/core/shell-command.ts, the module that
 * `hookrelay events export --format curl` uses too (issue 13): one implementation, one behaviour.
 * Vite bundles it like any other source; it uses no Node API.
 */
import { curlCommand as buildCurlCommand, shellQuote } from '../../src/core/shell-command.js';

export { shellQuote };

export interface CurlInput {
  url: string;
  headers: ReadonlyArray<readonly [string, string]>;
  /** Leniently decoded body (BOM skipped). */
  text: string;
  /** Exact bytes, base64. */
  base64: string;
  /** When set, the text is not the exact bytes. */
  exactBytesNeeded: boolean;
}

function fromBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * A curl command that re-sends the delivery byte for byte (with its original, by now probably
 * stale, signature), the same in sh, bash and zsh. The body always comes from the exact bytes.
 */
export function curlCommand(input: CurlInput): string {
  const body = input.base64 !== '' || input.exactBytesNeeded ? fromBase64(input.base64) : new TextEncoder().encode(input.text);
  return buildCurlCommand({ url: input.url, headers: input.headers, body });
}

/** The first command a new user runs (PRODUCT.md: `send` on the same machine needs no flags). */
export function sendCommand(receiverUrl: string): string {
  return `npx hookrelay send --to ${shellQuote(receiverUrl)} --trigger trustcenter.access_requested`;
}
