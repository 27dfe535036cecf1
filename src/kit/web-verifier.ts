/** The portable verifier for the adapters: Web Crypto (`verifyAsync`), for runtimes without node:crypto. */
import type { Verifier } from './receive.js';
import { verifyAsync } from './verify-async.js';

export const webVerifier: Verifier = (body, header, options) => verifyAsync(body, header, options);
