/**
 * The console listener with what it is given of the app: status, replay, relay history,
 * conformance, delete, metrics, and the one secret redactor. Never on the receiver's listener.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ConsoleConfig, ForwardConfig } from '../config/node-config.js';
import type { BridgeView, RelayTargetsAdapter } from '../console/console-options.js';
import { outputRedactor } from '../config/output-redactor.js';
import { secretHint } from '../core/secret-hint.js';
import type { FaultRules } from '../faults/rules-controller.js';
import type { Metrics } from '../metrics/metrics.js';
import type { BulkReplays } from '../relay/bulk-replays.js';
import type { ReplayResult } from '../relay/replay.js';
import type { EventHub } from '../runtime/event-hub.js';
import { isAnyAddress, isLoopbackHost, urlHost } from '../runtime/hosts.js';
import { VERSION } from '../runtime/version.js';
import type { DeliveryStore } from '../store/store.js';

export interface ConsoleWiring {
  settings: ConsoleConfig;
  store: DeliveryStore;
  hub: EventHub;
  faults: FaultRules;
  /** Where deliveries come in, read when asked: known once the intake is open, after the console. */
  receiverUrl: () => string;
  path: string;
  secrets: readonly string[];
  skipVerify: boolean;
  toleranceSeconds: number;
  forward: ForwardConfig | null;
  replay(deliveryId: string, targetUrl?: string): Promise<ReplayResult | null>;
  /** Bulk replay jobs of the node's data folder (`/api/replay-jobs`). */
  bulkReplays?: BulkReplays;
  /** Called before a delivery is deleted (the relay forgets its read-ahead job). */
  forget(deliveryId: string): void;
  clock: () => number;
  /** The bridge's state, for `GET /api/bridge` and the page's bridge line; absent without a bridge. */
  bridge?: () => BridgeView | Promise<BridgeView>;
  /** The relay's targets, their pace and pause; absent without an async relay. */
  relayTargets?: RelayTargetsAdapter;
  /** The built page; default `web/dist` of the package (tests pass their own build). */
  webRoot?: string;
}

export interface StartedConsole {
  server: FastifyInstance;
  metrics: Metrics;
  url: string;
  token: string | null;
}

export async function startConsole(wiring: ConsoleWiring): Promise<StartedConsole> {
  const { settings, store, hub, forward } = wiring;
  const token = settings.token ?? (isLoopbackHost(settings.host) ? null : randomBytes(24).toString('base64url'));
  const [{ createMetrics }, { judgeStoredDelivery }, { DEFAULT_WEB_ROOT }, { createConsoleServer }] = await Promise.all([
    import('../metrics/metrics.js'),
    import('../conformance/judge-stored.js'),
    import('../console/static-files.js'),
    import('../console/console-server.js'),
  ]);
  // The lag and backlog series (issue 39) read the store at scrape time, aged by the node's clock.
  const metrics = createMetrics({ hub, relayCounts: () => store.relayCounts(), lagReads: store, now: wiring.clock });
  const jobs = wiring.bulkReplays;
  if (jobs) metrics.setReplayJobs(() => jobs.list());
  const targets = wiring.relayTargets;
  if (targets) metrics.setRelayTargets(() => targets.list());
  // The secrets are fixed for the process's life; every accepted delivery's feed summary reads these.
  const secretHints = wiring.secrets.map(secretHint);
  let server: FastifyInstance | null = null;
  try {
    server = await createConsoleServer({
      metrics,
      store,
      hub,
      status: () => ({
        version: VERSION,
        receiverUrl: wiring.receiverUrl(),
        path: wiring.path,
        secretHints,
        skipVerify: wiring.skipVerify,
        forwardTo: forward?.to ?? null,
        toleranceSeconds: wiring.toleranceSeconds,
      }),
      listenHost: settings.host,
      listenPort: settings.port,
      allowedHosts: settings.allowedHosts,
      token,
      webRoot: wiring.webRoot ?? DEFAULT_WEB_ROOT,
      faults: wiring.faults,
      ...(wiring.bulkReplays ? { bulkReplays: wiring.bulkReplays } : {}),
      replay: async (id, targetUrl) => {
        const result = await wiring.replay(id, targetUrl ?? undefined);
        if (!result) return { ok: false, status: null, error: 'no stored delivery with that id' };
        return { ok: result.ok, status: result.status, target: result.target, ...(result.error ? { error: result.error } : {}) };
      },
      conformance: (id) => judgeStoredDelivery(store, id),
      remove: (id) => {
        wiring.forget(id);
        return store.deleteDelivery(id);
      },
      ...(wiring.bridge ? { bridge: wiring.bridge } : {}),
      ...(wiring.relayTargets ? { relayTargets: wiring.relayTargets } : {}),
      redact: outputRedactor(wiring.secrets, forward),
      now: wiring.clock,
    });
    await server.listen({ host: settings.host, port: settings.port });
  } catch (err) {
    await server?.close();
    metrics.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw Object.assign(new Error(`console port ${settings.port} on ${settings.host} is already in use: pass --console-port, or --no-console`), { code: 'CONSOLE_PORT_IN_USE' });
    }
    throw err;
  }
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = isLoopbackHost(settings.host) || isAnyAddress(settings.host) ? 'localhost' : urlHost(settings.host);
  return { server, metrics, token, url: `http://${host}:${port}/${token ? `?token=${encodeURIComponent(token)}` : ''}` };
}
