/**
 * Typed in-process events. The receiver, relay and control API emit; the terminal reporter,
 * the console feed and metrics subscribe. Nothing in the core prints.
 */
import type { AttemptRecord, StoredDelivery } from '../core/records.js';

export interface HubEvents {
  /** Every arrival, once its record is final (accepted, duplicate, rejected, faulted, unavailable). */
  attempt: {
    attempt: AttemptRecord;
    skipVerify: boolean;
    /** The receiver's request id (also sent as `x-request-id`). */
    requestId?: string;
    /** Set by a bridge for another instance's arrival: shown in consoles, not counted in this instance's metrics or logs. */
    remote?: boolean;
  };
  /**
   * A delivery stored for the first time. `rawBody` and `rawHeaders` (flat, as received) let the
   * relay hand it on without reading it back; never sent to a console or a log.
   */
  delivery: { delivery: Omit<StoredDelivery, 'rawBody'> & { bodyBytes: number }; rawBody?: Buffer; rawHeaders?: readonly string[] };
  /**
   * A relay try (the relay's, a replay, or the sync hand-off that let a delivery in), announced by
   * the relay log (handoff/relay-log.ts) once it is recorded in the delivery's relay history.
   */
  relay: { deliveryId: string; status: number | null; ok: boolean; latencyMs: number; replay: boolean; error?: string; nextRetryAt?: number | null; /** Where it went, its credentials hidden (displayUrl). */ target: string };
  /** The fault rules changed (issue 4). */
  rules: { rules: unknown[]; change: string };
  /** One group commit of the store's writer (metrics): duration, requests in it, and whether it committed. */
  commit: { ms: number; size: number; ok: boolean };
  /** A bulk replay job's progress (relay/bulk-replays.ts): at its start, as copies finish (at most a few a second), and at its end. */
  replayJob: { id: string; total: number; done: number; ok: number; failed: number; state: 'running' | 'finished' | 'stopped' | 'failed'; error?: string };
  /** Something an operator should see (startup, shutdown, warnings). */
  notice: { level: 'info' | 'warn' | 'error'; message: string };
}

export type HubEventName = keyof HubEvents;
type Listener<K extends HubEventName> = (payload: HubEvents[K]) => void;

export interface EventHub {
  emit<K extends HubEventName>(name: K, payload: HubEvents[K]): void;
  /** Whether anyone listens to `name`: an emitter skips building a payload no one would read. */
  listens(name: HubEventName): boolean;
  /** Returns a function that unsubscribes. */
  on<K extends HubEventName>(name: K, listener: Listener<K>): () => void;
}

/** A callback that emits each payload it is given as `name` on `hub`: a store's `onCommit`, for example. */
export function emitterOf<K extends HubEventName>(hub: EventHub, name: K): (payload: HubEvents[K]) => void {
  return (payload) => hub.emit(name, payload);
}

export function createEventHub(): EventHub {
  const listeners = new Map<HubEventName, Set<Listener<never>>>();
  return {
    emit(name, payload) {
      const set = listeners.get(name);
      if (!set) return;
      for (const listener of set) {
        // A failing subscriber must never break intake.
        try {
          (listener as Listener<typeof name>)(payload);
        } catch {
          /* subscribers report their own errors */
        }
      }
    },
    listens(name) {
      const set = listeners.get(name);
      return set !== undefined && set.size > 0;
    },
    on(name, listener) {
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      set.add(listener as Listener<never>);
      return () => set!.delete(listener as Listener<never>);
    },
  };
}
