/**
 * `options.subtle` takes any Web Crypto: the global one, Node's `webcrypto.subtle` (typed apart from
 * the DOM's), and an object with only the two calls made. The types are checked by `tsc` (the
 * repository's typecheck); the runs show those two calls are all that is used.
 */
import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import { signAsync, verifyAsync, type HmacSubtle } from '../../src/kit/verify-async.js';

const body = '{"id":"d1"}';
const t = 1_800_000_000;

const onlyHmac = (calls: string[]): HmacSubtle => ({
  importKey: (format, keyData, algorithm, extractable, keyUsages) => (calls.push('importKey'), webcrypto.subtle.importKey(format, keyData, algorithm, extractable, keyUsages)),
  sign: (algorithm, key, data) => (calls.push('sign'), webcrypto.subtle.sign(algorithm, key as webcrypto.CryptoKey, data)),
});

describe('verifyAsync and signAsync on a given Web Crypto', () => {
  it.each([
    ['the global crypto.subtle', () => globalThis.crypto.subtle],
    ["Node's webcrypto.subtle", () => webcrypto.subtle],
  ])('%s', async (_name, subtle) => {
    expect(await signAsync('s', body, t, { subtle: subtle() })).toBe(sign('s', body, t));
    expect(await verifyAsync(body, sign('s', body, t), { secrets: 's', nowSeconds: t, subtle: subtle() })).toMatchObject({ ok: true, secretIndex: 0 });
  });

  it('needs only importKey and sign', async () => {
    const calls: string[] = [];
    expect(await signAsync('s', body, t, { subtle: onlyHmac(calls) })).toBe(sign('s', body, t));
    expect(await verifyAsync(body, sign('s', body, t), { secrets: ['x', 's'], nowSeconds: t, subtle: onlyHmac(calls) })).toMatchObject({ ok: true, secretIndex: 1 });
    expect(calls).toEqual(['importKey', 'sign', 'importKey', 'sign', 'importKey', 'sign']);
  });
});
