/**
 * The one replayer: a stored delivery re-sent freshly signed, marked as a replay, and recorded in its
 * history. The console of `listen` and of `connect`, and `hookrelay events replay`, all replay through
 * it, so each honours the same settings: the routes (no URL given: where the relay would send the
 * delivery now), the trust of https targets (--forward-ca, --forward-insecure) and the forward headers.
 */
import type { Dispatcher } from 'undici';
import { relayTargetOf, type RelayTargets } from '../core/routes.js';
import { displayUrl } from '../core/url-secrets.js';
import type { TargetTrust } from '../handoff/forward-agent.js';
import { createHandOff, targetTook } from '../handoff/hand-off.js';
import { createRelayLog } from '../handoff/relay-log.js';
import type { EventHub } from '../runtime/event-hub.js';
import type { DeliveryStore } from '../store/store.js';

export interface ReplayResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** Where it went, its credentials redacted (core/url-secrets.ts). */
  target: string;
  latencyMs: number;
}

export interface ReplaySettings {
  /** Signs every replay; null: none was configured, and a replay says what to pass. */
  secret: string | null;
  timeoutMs: number;
  headers: ReadonlyArray<[string, string]>;
  trust?: TargetTrust;
  /** Where a replay with no URL goes (its route, else the fallback); null: a URL must be given. */
  targets: RelayTargets | null;
}

export interface ReplayerOptions {
  store: Pick<DeliveryStore, 'getDelivery' | 'relayHistory' | 'recordRelay'>;
  /** Announces each replay (`relay`, marked replay) to the console and the logs; absent in the CLI. */
  hub?: EventHub;
  settings: ReplaySettings;
  clock: () => number;
  /** Where the words of a refusal point (`listen`, `connect`, or the CLI's flags). */
  advice?: { noTarget: string; noSecret: string };
}

export interface Replayer {
  /** Resolves null when no delivery has that id; rejects, naming what to pass, when there is no target or no secret. */
  replay(deliveryId: string, to?: string): Promise<ReplayResult | null>;
  /** Closes the connections replays opened. */
  close(): Promise<void>;
}

const DEFAULT_ADVICE = {
  noTarget: 'no target: pass a URL, or start with --forward-to',
  noSecret: 'no secret to sign the replay with: start with --secret or --forward-secret',
};

export function createReplayer(options: ReplayerOptions): Replayer {
  const { store, settings, clock } = options;
  const advice = options.advice ?? DEFAULT_ADVICE;
  const relayLog = createRelayLog(store, options.hub ?? null);
  let dispatcher: Dispatcher | null = null;
  return {
    async replay(deliveryId, to) {
      if (to === undefined && settings.targets === null) throw new Error(advice.noTarget);
      if (settings.secret === null) throw new Error(advice.noSecret);
      const delivery = await store.getDelivery(deliveryId);
      if (!delivery) return null;
      const target = to ?? relayTargetOf(settings.targets!, { trigger: delivery.trigger, rawBody: delivery.rawBody, headers: delivery.headers });
      // Loaded on first use: undici's pool is not needed until something is replayed.
      dispatcher ??= (await import('../handoff/forward-agent.js')).createForwardAgent(settings.trust, { keepAliveTimeout: 5_000 });
      const history = await store.relayHistory(deliveryId);
      const replayTry = history.attempts.filter((a) => a.replay).length + 1;
      const handOff = createHandOff({ secret: settings.secret, headers: settings.headers, timeoutMs: settings.timeoutMs }, dispatcher, clock);
      const handedOff = await handOff.post(delivery, target, { relayTry: replayTry, replay: true });
      await relayLog.record({ deliveryId, deliverySeq: delivery.seq, try: replayTry, replay: true, handedOff, next: null });
      const { answer } = handedOff;
      return { ok: targetTook(answer), status: answer.status, error: answer.error, target: displayUrl(target), latencyMs: answer.latencyMs };
    },
    async close() {
      await dispatcher?.close();
    },
  };
}
