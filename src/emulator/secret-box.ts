/**
 * Secrets at rest (spec 2.11: the signing secret and custom header values are encrypted):
 * AES-256-GCM, a fresh 96-bit IV per value, and the row and field as associated data, so a
 * ciphertext copied to another webhook or field does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws when the value was altered or sealed for another context. */
  open(sealed: string, context: string): string;
}

const VERSION = 'v1';

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new RangeError('the emulator key must be 32 bytes (AES-256)');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
