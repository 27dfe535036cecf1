/**
 * Certificate files named by flags (`--tls-cert`/`--tls-key`, `--forward-ca`, `--bridge-ca`): read
 * and checked while the settings are resolved, so a bad file stops the start before anything is
 * created, with a message that names the flag and the file.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { unreadableBecause } from '../core/file-errors.js';

/** A PEM file larger than this is not a certificate or a key (and is not read whole). */
const MAX_PEM_BYTES = 1024 * 1024;

/** A certificate and its private key, PEM, for a listener. */
export interface TlsPair {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

type Read = { ok: true; text: string } | { ok: false; message: string };

/** The file's text, or why it cannot be used: missing, not a regular file, too large, unreadable. */
function readPem(flag: string, file: string): Read {
  const named = `${flag} ${JSON.stringify(file)}`;
  try {
    const stat = statSync(file);
    // A FIFO or a device (/dev/zero) would block or never end.
    if (!stat.isFile()) return { ok: false, message: `${named}: not a regular file` };
    if (stat.size > MAX_PEM_BYTES) return { ok: false, message: `${named}: ${stat.size} bytes is too large for a PEM file` };
    return { ok: true, text: readFileSync(file, 'utf8') };
  } catch (err) {
    return { ok: false, message: `${named}: cannot read it (${unreadableBecause(err)})` };
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * `--forward-ca FILE` / `--bridge-ca FILE`: one or more PEM certificates (a bundle), each of which
 * must parse. Anything else (a key, DER bytes, an empty file) is refused with the reason.
 */
export function readCaFile(flag: string, file: string): { ok: true; pem: string } | { ok: false; message: string } {
  const read = readPem(flag, file);
  if (!read.ok) return read;
  const blocks = read.text.match(PEM_CERTIFICATE) ?? [];
  const named = `${flag} ${JSON.stringify(file)}`;
  if (blocks.length === 0) {
    const hint = read.text.includes('PRIVATE KEY') ? ' (it holds a private key: give the certificate instead)' : ' (expected "-----BEGIN CERTIFICATE-----"; convert DER with `openssl x509 -inform der -in FILE -out FILE.pem`)';
    return { ok: false, message: `${named}: holds no PEM certificate${hint}` };
  }
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (err) {
      return { ok: false, message: `${named}: certificate #${i + 1} cannot be read (${(err as Error).message})` };
    }
  }
  return { ok: true, pem: blocks.join('\n') };
}

/**
 * `--tls-cert FILE --tls-key FILE`: both or neither; each readable; the key must be the
 * certificate's (checked by building the TLS context a listener would use).
 */
export function readTlsPair(certFile: string | undefined, keyFile: string | undefined): { pair: TlsPair | null; problems: string[] } {
  if (certFile === undefined && keyFile === undefined) return { pair: null, problems: [] };
  if (certFile === undefined) return { pair: null, problems: ['--tls-key needs --tls-cert: give both (the certificate and its private key), or neither'] };
  if (keyFile === undefined) return { pair: null, problems: ['--tls-cert needs --tls-key: give both (the certificate and its private key), or neither'] };
  const cert = readPem('--tls-cert', certFile);
  const key = readPem('--tls-key', keyFile);
  const problems = [cert, key].flatMap((r) => (r.ok ? [] : [r.message]));
  if (!cert.ok || !key.ok) return { pair: null, problems };
  const named = (flag: string, file: string) => `${flag} ${JSON.stringify(file)}`;
  if ((cert.text.match(PEM_CERTIFICATE) ?? []).length === 0) {
    const hint = cert.text.includes('PRIVATE KEY') ? ' (it holds a private key: are --tls-cert and --tls-key swapped?)' : ' (expected "-----BEGIN CERTIFICATE-----")';
    return { pair: null, problems: [`${named('--tls-cert', certFile)}: holds no PEM certificate${hint}`] };
  }
  try {
    new X509Certificate(cert.text);
  } catch (err) {
    return { pair: null, problems: [`${named('--tls-cert', certFile)}: the certificate cannot be read (${(err as Error).message})`] };
  }
  try {
    // What the listener will build: fails on a key that is not the certificate's.
    createSecureContext({ cert: cert.text, key: key.text });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const keyNamed = named('--tls-key', keyFile);
    if (e.code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH' || /key values mismatch/.test(e.message)) {
      return { pair: null, problems: [`${keyNamed} is not the private key of ${named('--tls-cert', certFile)} (key values mismatch)`] };
    }
    const hint = /ENCRYPTED/.test(key.text) ? ': the key is encrypted; give an unencrypted one (openssl pkey -in KEY -out KEY.plain)' : ' (expected "-----BEGIN PRIVATE KEY-----")';
    return { pair: null, problems: [`${keyNamed}: not a usable PEM private key${hint} (${e.message})`] };
  }
  return { pair: { cert: cert.text, key: key.text, certFile, keyFile }, problems: [] };
}
