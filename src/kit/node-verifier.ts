/** Node's verifier for the adapters: the synchronous `verify` on node:crypto, with every hint `hookrelay verify` gives. */
import { verify } from './verify-now.js';
import type { Verifier } from './receive.js';

export const nodeVerifier: Verifier = (body, header, options) => verify(body, header, options);
