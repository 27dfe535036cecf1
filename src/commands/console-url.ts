/**
 * The console's URLs as `listen` and `connect` show them at start, in the banner and in the JSON
 * line alike. A token the user gave (--console-token, HOOKRELAY_CONSOLE_TOKEN) is theirs already:
 * it is hidden, as every secret in output is. A generated one is printed, once, here, or no one
 * could open the console.
 */
import { displayUrl } from '../core/url-secrets.js';

export function shownConsoleUrl(url: string, givenToken: string | null | undefined): string {
  return givenToken ? displayUrl(url) : url;
}

/** The console's /metrics URL, keeping its `?token=` when it has one. */
export function metricsUrl(consoleUrl: string): string {
  const url = new URL(consoleUrl);
  url.pathname = '/metrics';
  return url.href;
}

/** What the banner says after the console URL about its token. */
export function consoleTokenNote(generated: boolean, givenToken: string | null | undefined): string {
  if (givenToken) return '   (its token is the one given: --console-token or HOOKRELAY_CONSOLE_TOKEN)';
  return generated ? '   (token generated for this run: the console is not on loopback)' : '';
}
