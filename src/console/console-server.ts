/**
 * The console listener (issue 6): the page, the WebSocket feed and the JSON control API, on a
 * listener of their own — the receiver never serves any of it. Returns a fastify instance that is
 * not listening: the composition root calls `listen()`, tests use `inject()` or a real socket.
 */
import { MAX_ID_LENGTH } from '../core/envelope.js';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { ConsoleApiError, codeForStatus, failure, success } from './api-envelope.js';
import { registerDeliveryRoutes } from './api-deliveries.js';
import { registerFaultRoutes } from './api-faults.js';
import { registerReplayJobRoutes } from './api-replay-jobs.js';
import { registerTargetRoutes } from './api-targets.js';
import type { ConsoleContext } from './console-context.js';
import { DEFAULT_FEED_LIMITS, type BridgeView, type ConsoleServerOptions } from './console-options.js';
import { createCursorCodec } from './cursor.js';
import { createFeed } from './feed.js';
import { FEED_PATH, handleFeedUpgrades } from './feed-upgrade.js';
import { createHostAllowList } from './host-allow-list.js';
import { isLoopbackHost } from '../runtime/hosts.js';
import { publishHubToFeed } from './hub-feed.js';
import { STATIC_ROUTE, checkRequest, setSecurityHeaders } from './request-guard.js';
import { PAGE_NOT_BUILT, loadStaticFiles } from './static-files.js';
import { clip, statusView } from './views.js';
import { checkMetricsRequest } from './metrics-guard.js';
import { METRICS_PATH, type Metrics } from '../metrics/metrics.js';
import { lazySchemaControllers } from '../runtime/lazy-schema-compilers.js';

/** Control API request bodies are rules and replay targets: small. */
const API_BODY_LIMIT = 64 * 1024;

/** The console was configured in a way that would expose it; thrown by createConsoleServer. */
export class ConsoleConfigError extends Error {
  readonly code = 'CONSOLE_TOKEN_REQUIRED';
  constructor(message: string) {
    super(message);
    this.name = 'ConsoleConfigError';
  }
}

/** JSON bodies only; a `__proto__` key is refused rather than carried into adapters. */
function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  return JSON.parse(text, (key, value: unknown) => {
    if (key === '__proto__') throw new SyntaxError('"__proto__" is not allowed');
    return value;
  });
}

/** Subscribers are named by whoever holds a token: the answer lists at most this many, the most behind first. */
export const MAX_BRIDGE_SUBSCRIBERS = 100;
/** Longest subscriber name, host or state sent (a subscriber name is at most 64, a token's name is the operator's). */
const MAX_BRIDGE_TEXT = 200;

const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
const text = (value: unknown): string => clip(String(value), MAX_BRIDGE_TEXT)!;

/** What `GET /api/bridge` sends: built field by field, so nothing else the reader returns (least of all a token) rides along. */
function bridgeView(view: BridgeView): Record<string, unknown> {
  if (view.side === 'public') {
    const all = Array.isArray(view.subscribers) ? view.subscribers : [];
    const subscribers = all
      .map((s) => ({ subscriber: text(s.subscriber), connected: s.connected === true, ackedSeq: count(s.ackedSeq), lag: count(s.lag) }))
      .sort((a, b) => b.lag - a.lag || (a.subscriber < b.subscriber ? -1 : a.subscriber > b.subscriber ? 1 : 0))
      .slice(0, MAX_BRIDGE_SUBSCRIBERS);
    return { side: 'public', total: all.length, connected: all.filter((s) => s.connected === true).length, subscribers };
  }
  return {
    side: 'laptop',
    state: text(view.state),
    host: text(view.host),
    name: text(view.name),
    receivedSeq: count(view.receivedSeq),
    ackedSeq: count(view.ackedSeq),
    lag: count(view.lag),
    reconnects: count(view.reconnects),
  };
}

/** `/metrics` (Prometheus text) rides on the console listener, under the console's Host and token rules. */
export type ConsoleServerSettings = ConsoleServerOptions & { metrics?: Metrics };

export async function createConsoleServer(options: ConsoleServerSettings): Promise<FastifyInstance> {
  if (options.token === null && !isLoopbackHost(options.listenHost)) {
    throw new ConsoleConfigError(
      `the console is bound to ${options.listenHost}, beyond loopback: it needs a token (--console-token, or let listen generate one)`,
    );
  }
  if (options.token !== null && options.token.length < 8) {
    throw new ConsoleConfigError('the console token must be at least 8 characters');
  }
  const now = options.now ?? Date.now;
  const redact = options.redact ?? ((text: string) => text);

  const app = Fastify({
    // No request logging: a logged URL could carry the page's `?token=`.
    logger: false,
    bodyLimit: API_BODY_LIMIT,
    trustProxy: false,
    return503OnClosing: true,
    // Route parameters are delivery ids: the longest the receiver stores (MAX_ID_LENGTH UTF-16
    // units) percent-encoded is at most 9 bytes a unit. fastify's default, 100, hid longer ids.
    routerOptions: { maxParamLength: MAX_ID_LENGTH * 9 },
    schemaController: lazySchemaControllers,
  });

  // Read lazily: with port 0 the bound port is known only once the composition root has listened.
  const ports = (): number[] => {
    const address = app.server.listening ? app.server.address() : null;
    if (address !== null && typeof address === 'object') return [address.port];
    return options.listenPort > 0 ? [options.listenPort] : [];
  };
  const hosts = createHostAllowList({ listenHost: options.listenHost, allowedHosts: options.allowedHosts ?? [], ports });

  const feed = createFeed({ ...DEFAULT_FEED_LIMITS, ...options.feed }, (message) =>
    options.hub.emit('notice', { level: 'warn', message }),
  );
  const ctx: ConsoleContext = { options, cursors: createCursorCodec(), feed, now, redact, status: () => statusView(options.status()) };
  const unpublish = publishHubToFeed({ hub: options.hub, feed, secretHints: () => ctx.status().secretHints, redact, now });
  const detachUpgrades = handleFeedUpgrades({ server: app.server, feed, hosts, token: options.token });

  app.addHook('preClose', async () => {
    unpublish();
    detachUpgrades();
    feed.close();
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(new ConsoleApiError(400, 'BAD_REQUEST', `the body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    setSecurityHeaders(reply);
    if (options.metrics && request.routeOptions.url === METRICS_PATH) checkMetricsRequest(request, { hosts, token: options.token });
    else checkRequest(request, { hosts, token: options.token });
  });

  app.setErrorHandler((err: FastifyError | ConsoleApiError, _request, reply) => {
    if (err instanceof ConsoleApiError) {
      return reply.code(err.statusCode).send(failure(err.code, err.message, now(), err.details));
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      options.hub.emit('notice', { level: 'error', message: redact(`console: ${err.message}`) });
      return reply.code(500).send(failure('INTERNAL_ERROR', 'internal error in the console', now()));
    }
    return reply.code(status).send(failure(codeForStatus(status), err.message, now()));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(failure('NOT_FOUND', 'not found', now())));

  app.get('/api/status', async () => {
    const { faults } = options;
    return success(
      {
        ...ctx.status(),
        tokenRequired: options.token !== null,
        feedPath: FEED_PATH,
        features: {
          faults: faults !== undefined,
          faultValidation: typeof faults?.validate === 'function',
          replay: options.replay !== undefined,
          remove: options.remove !== undefined,
          conformance: options.conformance !== undefined,
          // Read from the store, which every console has.
          relayHistory: true,
          bridge: options.bridge !== undefined,
          metrics: options.metrics !== undefined,
          bulkReplay: options.bulkReplays !== undefined,
          targets: options.relayTargets !== undefined,
        },
      },
      now(),
    );
  });
  if (options.metrics) {
    const metrics = options.metrics;
    metrics.setConsoleClients(() => feed.clientCount());
    app.get(METRICS_PATH, async (_request, reply) => reply.type(metrics.contentType).header('cache-control', 'no-store').send(await metrics.render()));
  }
  if (options.bridge) {
    const read = options.bridge;
    app.get('/api/bridge', async (_request, reply) => reply.header('cache-control', 'no-store').send(success(bridgeView(await read()), now())));
  }
  registerDeliveryRoutes(app, ctx);
  registerFaultRoutes(app, ctx);
  registerReplayJobRoutes(app, ctx);
  registerTargetRoutes(app, ctx);

  const files = loadStaticFiles(options.webRoot);
  app.get(STATIC_ROUTE, async (request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    if (path.startsWith('/api/')) return reply.callNotFound();
    const file = files.get(path === '/' ? '/index.html' : path);
    if (!file) {
      if (path === '/' || path === '/index.html') return reply.code(503).type('text/plain; charset=utf-8').send(PAGE_NOT_BUILT);
      return reply.callNotFound();
    }
    reply
      .header('content-type', file.type)
      .header('etag', file.etag)
      .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.send(file.body);
  });

  return app;
}
