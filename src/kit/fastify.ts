/**
 * `hookrelay/fastify`: a plugin that serves one webhook route. Its raw-Buffer body parser is
 * registered inside the plugin's own encapsulated context, so it applies to that route only: every
 * other route of the app keeps its JSON parser.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODE_HEADER } from '../core/error-code-header.js';
import { errorEnvelope, handlerFailed, successEnvelope, WebhookError } from './errors.js';
import { nodeVerifier } from './node-verifier.js';
import { receive, receiveSettings, releaseClaim, tooLarge, type Delivery, type ReceiveOptions } from './receive.js';

export { memoryDedupe, type DedupeStore, type Delivery, type ReceiveOptions } from './receive.js';
export { WebhookError } from './errors.js';
export { isEvent, isKnownEvent, type EventOf, type KnownEvent, type UnknownEvent, type WebhookEvent } from './events.js';

export interface FastifyWebhookOptions extends ReceiveOptions {
  /** The route, relative to the plugin's prefix (default `/webhooks`). */
  path?: string;
  /**
   * Runs for each verified delivery (not for repeats the dedupe store has seen). If it does not
   * send a reply, the route answers 200 with the spec's success envelope. A throw answers 500
   * HANDLER_FAILED (the error's message stays out of the answer) and the service retries (spec
   * 6.4); a throw or a non-2xx reply releases the id from the dedupe store, so the retry runs it again.
   */
  onDelivery: (delivery: Delivery, request: FastifyRequest, reply: FastifyReply) => unknown;
  /** Called with every refusal before it is answered (log it: its hints say what to do). */
  onError?: (error: WebhookError, request: FastifyRequest) => void;
}

/**
 * `app.register(hookrelayPlugin, { secrets, onDelivery })`. Register it without fastify-plugin:
 * the encapsulation is what keeps the Buffer parser off the app's other routes.
 */
export async function hookrelayPlugin(app: FastifyInstance, options: FastifyWebhookOptions): Promise<void> {
  const settings = receiveSettings(options);
  if (typeof options.onDelivery !== 'function') throw new TypeError('hookrelayPlugin needs onDelivery(delivery, request, reply)');
  const path = options.path ?? '/webhooks';
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: settings.bodyLimitBytes }, (_request, body, done) => done(null, body));
  app.setErrorHandler((error: { statusCode?: number; code?: string; message: string }, request, reply) => {
    // Raised by fastify before the handler: a body over the limit, or one it could not read.
    if (error.statusCode === 413) return refuse(request, reply, tooLarge(settings.bodyLimitBytes));
    if (error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      return refuse(request, reply, new WebhookError('INVALID_CONTENT_LENGTH', 400, 'Content-Length does not match the body received'));
    }
    if (isFastifyClientError(error)) return reply.header(ERROR_CODE_HEADER, error.code).send(error);
    // Anything else is the app's failure (onDelivery threw): logged here, never echoed to the sender.
    request.log.error({ err: error }, 'hookrelay: onDelivery failed');
    return refuse(request, reply, handlerFailed(error));
  });

  const refuse = (request: FastifyRequest, reply: FastifyReply, error: WebhookError) => {
    options.onError?.(error, request);
    return reply.code(error.status).header(ERROR_CODE_HEADER, error.code).type('application/json; charset=utf-8').send(errorEnvelope(error, settings.now()));
  };

  app.post(path, async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const received = await receive({ body, header: (name) => request.headers[name] }, settings, nodeVerifier);
    if (!received.ok) return refuse(request, reply, received.error);
    const { delivery } = received;
    if (!delivery.duplicate) {
      try {
        await options.onDelivery(delivery, request, reply);
      } catch (err) {
        await releaseClaim(settings, delivery);
        throw err;
      }
      // Only an answer that went out counts: a code set without a send is overwritten by the 200 below.
      if (reply.sent && (reply.statusCode < 200 || reply.statusCode > 299)) await releaseClaim(settings, delivery);
    }
    if (reply.sent) return reply;
    return reply.code(200).type('application/json; charset=utf-8').send(successEnvelope({ deliveryId: delivery.deliveryId, ...(delivery.duplicate ? { duplicate: true } : {}) }, settings.now()));
  });
}

/** A 4xx fastify itself raised about the request (FST_ERR_*): its message is about what was sent, safe to answer with. */
function isFastifyClientError(error: { statusCode?: number; code?: string }): boolean {
  return typeof error.code === 'string' && error.code.startsWith('FST_') && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
}
