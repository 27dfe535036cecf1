/** Reads a node request's raw body into one Buffer, up to a limit. */
import type { IncomingMessage } from 'node:http';
import { WebhookError } from './errors.js';
import { tooLarge } from './receive.js';

export type BodyRead = { ok: true; body: Buffer } | { ok: false; error: WebhookError };

/** The whole body, or a 413 as soon as it passes `limit` (declared or sent), or why the read failed. Never rejects. */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false, error: tooLarge(limit) });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyRead) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
      size += bytes.length;
      if (size > limit) {
        // Stop buffering; what is left is read and dropped so the answer can go out.
        finish({ ok: false, error: tooLarge(limit) });
        req.resume();
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onError = (err: Error) => finish({ ok: false, error: new WebhookError('BODY_READ_FAILED', 400, `the request body could not be read: ${err.message}`, { cause: err }) });
    const onAborted = () => finish({ ok: false, error: new WebhookError('BODY_READ_FAILED', 400, 'the client closed the connection before the whole body arrived') });
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted);
  });
}
