/** A self-signed certificate for 127.0.0.1 and localhost, made by openssl in a temp folder. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SelfSigned {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

/** Writes `<name>.crt` and `<name>.key` (P-256, one day) into `dir`. */
export function makeSelfSigned(dir: string, name = 'local'): SelfSigned {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', `/CN=${name}`, '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}
