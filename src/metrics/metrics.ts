/**
 * Prometheus metrics (served as text on the console listener, never on the receiver). A
 * subscriber of the event hub like the terminal and the console: intake does no metrics work of
 * its own beyond the hub's emit. Its own Registry, never prom-client's global one, so that
 * several apps in one process (tests) do not share counters.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventHub } from '../runtime/event-hub.js';
import type { BridgeCursors, RelayOutbox } from '../store/store.js';
import { faultAnswerLabel, reasonLabel, statusClass } from './labels.js';
import { lagSecondsByCursor, MAX_TARGET_SERIES, shownTarget, targetBacklog, type TargetBacklog } from './lag.js';

export interface MetricsOptions {
  hub: EventHub;
  /** Relay jobs by state, read at scrape time (the queue depth); absent when forwarding is off. */
  relayCounts?: () => Promise<{ pending: number; done: number; dead: number }>;
  /** Process metrics (memory, CPU, event-loop lag, GC): on by default. */
  processMetrics?: boolean;
  /**
   * The store's reads behind the lag and backlog series (issue 39): the relay's backlog by target, and
   * the first delivery after a bridge subscriber's cursor. Read at scrape time; absent, those series are
   * not served. The composition root passes the node's store.
   */
  lagReads?: Pick<RelayOutbox, 'relayBacklog'> & Pick<BridgeCursors, 'deliveriesAfter'>;
  /** The clock the ages are measured with (ms since the epoch); default Date.now. */
  now?: () => number;
}

/** A known bridge subscriber on the public side (bridge-server status). */
export interface BridgeSubscriberSample {
  subscriber: string;
  ackedSeq: number;
  lag: number;
  connected: boolean;
}

/** The laptop side's bridge client (bridge-client progress and state). */
export interface BridgeClientSample {
  receivedSeq: number;
  ackedSeq: number;
  lag: number;
  reconnects: number;
  connected: boolean;
}

/** Subscribers are named by whoever holds a token: the series stop at this many, the most behind first. */
export const MAX_SUBSCRIBER_SERIES = 100;

export interface Metrics {
  readonly contentType: string;
  /** The exposition text. */
  render(): Promise<string>;
  /** The console tells how many feed clients it has (read at scrape time). */
  setConsoleClients(count: () => number): void;
  /** The public side's subscribers, read at scrape time (`listen --bridge-port`). */
  setBridgeSubscribers(read: () => Promise<BridgeSubscriberSample[]>): void;
  /** The laptop side's bridge client, read at scrape time (`connect`). */
  setBridgeClient(read: () => BridgeClientSample): void;
  /** The data folder's bulk replay jobs, read at scrape time (the node's console runs and lists them). */
  setReplayJobs(read: () => readonly ReplayJobSample[]): void;
  /** The relay's targets and their pace (`--pace`), read at scrape time. */
  setRelayTargets(read: () => readonly RelayTargetSample[]): void;
  /** Unsubscribes from the hub. */
  close(): void;
}

/** One target of the running relay as the metrics read it (relay/target-gates.ts). */
export interface RelayTargetSample {
  target: string;
  paused: boolean;
  inFlight: number;
}

/** Jobs pile up in the data folder: the series stop at this many, those not finished first, then the newest. */
export const MAX_REPLAY_JOB_SERIES = 20;

/** One bulk replay job as the metrics read it (relay/bulk-replays.ts lists them). */
export interface ReplayJobSample {
  id: string;
  createdAt: number;
  total: number;
  ok: number;
  failed: number;
  state: 'running' | 'finished' | 'stopped' | 'failed';
}

const REPLAY_JOB_STATES = ['running', 'stopped', 'finished'] as const;

export const METRICS_PATH = '/metrics';

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  /** Counts renders: series read from one source in several gauges share one read per scrape. */
  let scrape = 0;
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const attempts = new Counter({
    name: 'hookrelay_attempts_total',
    help: 'Arrivals at the receiver by outcome (accepted, duplicate, rejected, faulted, unavailable) and reason (an error code, fault, none)',
    labelNames: ['outcome', 'reason'] as const,
    registers,
  });
  const accepted = new Counter({ name: 'hookrelay_accepted_total', help: 'Deliveries stored for the first time', registers });
  const duplicates = new Counter({ name: 'hookrelay_duplicates_total', help: 'Arrivals of a delivery id already stored (answered 2xx, not handed on again)', registers });
  const rejected = new Counter({ name: 'hookrelay_rejected_total', help: 'Arrivals refused before storing, by reason (error code)', labelNames: ['reason'] as const, registers });
  const unavailable = new Counter({ name: 'hookrelay_unavailable_total', help: 'Arrivals answered 503 because the store could not write', registers });
  const faults = new Counter({
    name: 'hookrelay_faults_fired_total',
    help: 'Fault rules that fired, by answer (a status, no_response, or pass for delay/accept)',
    labelNames: ['answer'] as const,
    registers,
  });
  const commitSeconds = new Histogram({
    name: 'hookrelay_store_commit_seconds',
    help: 'Duration of one group commit of the store writer (busy retries included)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const commitBatch = new Histogram({
    name: 'hookrelay_store_commit_batch_size',
    help: 'Write requests in one group commit',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
    registers,
  });
  const commitFailures = new Counter({ name: 'hookrelay_store_commit_failures_total', help: 'Group commits that rolled back (every request they carried answered 503)', registers });
  const relaySeconds = new Histogram({
    name: 'hookrelay_relay_seconds',
    help: 'Latency of one hand-off to the forward target, by outcome (ok, failed) and replay',
    labelNames: ['outcome', 'replay'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const relays = new Counter({
    name: 'hookrelay_relay_total',
    help: 'Hand-offs to the forward target by outcome (ok, failed), status class (2xx … or none) and replay',
    labelNames: ['outcome', 'status_class', 'replay'] as const,
    registers,
  });

  // Both relay gauges collect in the same scrape, concurrently: they share one read.
  type RelayCounts = { pending: number; done: number; dead: number } | null;
  let reading: Promise<RelayCounts> | null = null;
  const readRelay = (): Promise<RelayCounts> => {
    if (!options.relayCounts) return Promise.resolve(null);
    reading ??= options.relayCounts().catch(() => null).finally(() => (reading = null));
    return reading;
  };
  new Gauge({
    name: 'hookrelay_relay_queue_depth',
    help: 'Relay jobs waiting to be handed on (pending), read from the store at scrape time',
    registers,
    async collect() {
      this.set((await readRelay())?.pending ?? 0);
    },
  });
  new Gauge({
    name: 'hookrelay_relay_jobs',
    help: 'Relay jobs by state (pending, done, dead), read from the store at scrape time',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const counts = await readRelay();
      for (const state of ['pending', 'done', 'dead'] as const) this.labels(state).set(counts?.[state] ?? 0);
    },
  });
  // Lag and backlog, per target (issue 39): one read of the store's backlog per scrape, shared by the
  // five series. A target's series are those of the targets the store still owes or has given up on:
  // reset at each scrape, so a target whose jobs are all done has none.
  const now = options.now ?? Date.now;
  const lagReads = options.lagReads;
  if (lagReads) {
    let readingBacklog: Promise<TargetBacklog[]> | null = null;
    const backlog = (): Promise<TargetBacklog[]> => {
      readingBacklog ??= lagReads
        .relayBacklog()
        .then((rows) => targetBacklog(rows, now()).targets)
        .catch(() => [])
        .finally(() => (readingBacklog = null));
      return readingBacklog;
    };
    const targetGauge = (name: string, help: string, value: (t: TargetBacklog) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['target'] as const,
        registers,
        async collect() {
          this.reset();
          for (const t of await backlog()) this.labels(t.target).set(value(t));
        },
      });
    new Gauge({
      name: 'hookrelay_relay_owed_jobs',
      help: 'Relay jobs still owed to a target (URL shown without credentials; "unknown": queued by an older hookrelay), by state: pending (due or waiting to retry), held (for a target the running relay does not hand on to)',
      labelNames: ['target', 'state'] as const,
      registers,
      async collect() {
        this.reset();
        for (const t of await backlog()) {
          this.labels(t.target, 'pending').set(t.pending);
          this.labels(t.target, 'held').set(t.held);
        }
      },
    });
    targetGauge('hookrelay_relay_oldest_owed_age_seconds', 'Age of the oldest delivery still owed to a target (pending or held), in seconds since it arrived; 0 when nothing is owed', (t) => t.oldestOwedAgeSeconds);
    targetGauge('hookrelay_relay_retrying_jobs', 'Relay jobs still owed to a target that were tried at least once and failed (the target is failing, or was)', (t) => t.retrying);
    targetGauge('hookrelay_relay_dead_jobs', 'Relay jobs given up for a target (tries exhausted or a non-retryable answer); `hookrelay events retry ID` puts one back', (t) => t.dead);
  }

  let consoleClients: () => number = () => 0;
  new Gauge({
    name: 'hookrelay_console_clients',
    help: 'Browser consoles connected to the feed',
    registers,
    collect() {
      this.set(consoleClients());
    },
  });

  const offs = [
    options.hub.on('attempt', ({ attempt, remote }) => {
      if (remote) return;
      const reason = reasonLabel(attempt.reason);
      attempts.labels(attempt.outcome, reason).inc();
      if (attempt.outcome === 'accepted') accepted.inc();
      else if (attempt.outcome === 'duplicate') duplicates.inc();
      else if (attempt.outcome === 'rejected') rejected.labels(reason).inc();
      else if (attempt.outcome === 'unavailable') unavailable.inc();
      const fault = faultAnswerLabel(attempt);
      if (fault !== null) faults.labels(fault).inc();
    }),
    options.hub.on('commit', ({ ms, size, ok }) => {
      commitSeconds.observe(ms / 1000);
      commitBatch.observe(size);
      if (!ok) commitFailures.inc();
    }),
    options.hub.on('relay', (r) => {
      const outcome = r.ok ? 'ok' : 'failed';
      const replay = r.replay ? 'true' : 'false';
      relaySeconds.labels(outcome, replay).observe(r.latencyMs / 1000);
      relays.labels(outcome, statusClass(r.status), replay).inc();
    }),
  ];

  // The bridge series exist only on the side that has a bridge: registered when it is wired in. One
  // read per scrape for every subscriber series: the status, then (with the store's reads) the age of
  // each cursor's first unacknowledged delivery, one read per distinct cursor.
  type SubscriberRow = BridgeSubscriberSample & { lagSeconds: number | null };
  let readSubscribers: Promise<SubscriberRow[]> | null = null;
  const subscribers = (read: () => Promise<BridgeSubscriberSample[]>): Promise<SubscriberRow[]> => {
    readSubscribers ??= read()
      .then(async (all) => {
        const shown = [...all].sort((a, b) => b.lag - a.lag || (a.subscriber < b.subscriber ? -1 : 1)).slice(0, MAX_SUBSCRIBER_SERIES);
        const behind = shown.filter((s) => s.lag > 0).map((s) => s.ackedSeq);
        const ages = lagReads && behind.length > 0 ? await lagSecondsByCursor(lagReads, behind, now()) : new Map<number, number>();
        return shown.map((s) => ({ ...s, lagSeconds: s.lag === 0 ? 0 : (ages.get(s.ackedSeq) ?? null) }));
      })
      .catch(() => [])
      .finally(() => (readSubscribers = null));
    return readSubscribers;
  };
  const subscriberGauge = (name: string, help: string, read: () => Promise<BridgeSubscriberSample[]>, value: (s: SubscriberRow) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['subscriber'] as const,
      registers,
      async collect() {
        this.reset(); // a subscriber no longer known has no series
        for (const s of await subscribers(read)) {
          const v = value(s);
          if (v !== null) this.labels(s.subscriber).set(v);
        }
      },
    });
  const clientGauge = (name: string, help: string, read: () => BridgeClientSample, value: (s: BridgeClientSample) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(value(read()));
      },
    });

  return {
    contentType: registry.contentType,
    render: () => {
      scrape++;
      return registry.metrics();
    },
    setConsoleClients(count) {
      consoleClients = count;
    },
    setBridgeSubscribers(read) {
      subscriberGauge('hookrelay_bridge_subscriber_acked_seq', 'Bridge subscribers (token/name): the last delivery seq acknowledged (the durable cursor)', read, (s) => s.ackedSeq);
      subscriberGauge('hookrelay_bridge_subscriber_lag', 'Bridge subscribers: the newest stored seq minus the acknowledged one', read, (s) => s.lag);
      if (lagReads) {
        subscriberGauge(
          'hookrelay_bridge_subscriber_lag_seconds',
          'Bridge subscribers: age in seconds of the oldest delivery not yet acknowledged (0 when caught up)',
          read,
          (s) => s.lagSeconds,
        );
      }
      subscriberGauge('hookrelay_bridge_subscriber_connected', 'Bridge subscribers: 1 when connected to this instance, else 0', read, (s) => (s.connected ? 1 : 0));
    },
    setBridgeClient(read) {
      clientGauge('hookrelay_bridge_received_seq', 'The last delivery seq received from the bridge in this process', read, (s) => s.receivedSeq);
      clientGauge('hookrelay_bridge_acked_seq', 'The last delivery seq stored here and acknowledged to the bridge in this process', read, (s) => s.ackedSeq);
      clientGauge('hookrelay_bridge_lag', "The bridge's newest seq (as last heard) minus the last acknowledged here", read, (s) => s.lag);
      // A count that only grows, read from the client: a counter, set at scrape time.
      new Counter({
        name: 'hookrelay_bridge_reconnects_total',
        help: 'Bridge connections lost or refused since start (each is retried)',
        registers,
        collect() {
          this.reset();
          this.inc(read().reconnects);
        },
      });
      clientGauge('hookrelay_bridge_connected', '1 when the bridge connection is up (hello received), else 0', read, (s) => (s.connected ? 1 : 0));
    },
    setRelayTargets(read) {
      new Gauge({
        name: 'hookrelay_relay_target_paused',
        help: 'Whether hand-offs to a target are paused (1) from the console; its jobs wait in the store (URL shown without credentials)',
        labelNames: ['target'] as const,
        registers,
        collect() {
          this.reset();
          for (const t of read().slice(0, MAX_TARGET_SERIES)) this.labels(shownTarget(t.target)).set(t.paused ? 1 : 0);
        },
      });
      new Gauge({
        name: 'hookrelay_relay_target_in_flight',
        help: 'Hand-offs to a target waiting for its answer (at most its --pace concurrency)',
        labelNames: ['target'] as const,
        registers,
        collect() {
          this.reset();
          for (const t of read().slice(0, MAX_TARGET_SERIES)) this.labels(shownTarget(t.target)).inc(t.inFlight);
        },
      });
    },

    setReplayJobs(read) {
      // One read for both gauges of a scrape (they agree, and each job's journal is read once); a job
      // folder that cannot be read shows no jobs rather than failing the scrape.
      let reading: { scrape: number; jobs: ReplayJobSample[] } | null = null;
      const shown = (): ReplayJobSample[] => {
        if (reading?.scrape === scrape) return reading.jobs;
        let jobs: ReplayJobSample[];
        try {
          jobs = [...read()].sort((a, b) => Number(a.state === 'finished') - Number(b.state === 'finished') || b.createdAt - a.createdAt).slice(0, MAX_REPLAY_JOB_SERIES);
        } catch {
          jobs = [];
        }
        reading = { scrape, jobs };
        return jobs;
      };
      new Gauge({
        name: 'hookrelay_replay_job_copies',
        help: 'Bulk replay jobs of the data folder: copies handed on (outcome="ok"), failed, and not yet sent ("left")',
        labelNames: ['job', 'outcome'] as const,
        registers,
        collect() {
          this.reset(); // a job no longer listed has no series
          for (const job of shown()) {
            this.labels(job.id, 'ok').set(job.ok);
            this.labels(job.id, 'failed').set(job.failed);
            this.labels(job.id, 'left').set(Math.max(0, job.total - job.ok - job.failed));
          }
        },
      });
      new Gauge({
        name: 'hookrelay_replay_job_state',
        help: 'Bulk replay jobs: 1 for the state each is in (running, stopped, finished), 0 for the others',
        labelNames: ['job', 'state'] as const,
        registers,
        collect() {
          this.reset();
          // A job that failed is stopped: it resumes like one.
          for (const job of shown()) for (const state of REPLAY_JOB_STATES) this.labels(job.id, state).set((job.state === 'failed' ? 'stopped' : job.state) === state ? 1 : 0);
        },
      });
    },
    close() {
      offs.forEach((off) => off());
    },
  };
}
