/** The one redactor of a process's output, built from its settings: listen, connect and their consoles use it. */
import { secretRedactor } from '../core/secret-hint.js';
import { urlSecrets } from '../core/url-secrets.js';
import type { ForwardConfig } from './listen-config.js';

/**
 * Replaces by their hints the secrets a process was given, the forward secret, and those its URLs
 * carry (`http://user:password@`, `?token=`): whatever prints them past displayUrl is still caught.
 */
export function outputRedactor(secrets: readonly string[], forward: ForwardConfig | null | undefined, urls: ReadonlyArray<string | null | undefined> = []): (text: string) => string {
  const targets = forward ? [forward.to, ...(forward.routes ?? []).flatMap((r) => r.urls)] : [];
  return secretRedactor([...secrets, ...(forward ? [forward.secret] : []), ...[...targets, ...urls].flatMap((url) => (url ? urlSecrets(url) : []))]);
}
