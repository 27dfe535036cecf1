/**
 * The spans of a delivery, for the code paths: the arrival (its fault rules, verify, commit and answer
 * as attributes of its span), each relay try, each bridge send and ack. Every helper
 * returns null at once while tracing is off (no OTEL_* asked for it: start-tracing.ts), so a node
 * without traces builds no span, no attribute object and no header, and loads no OpenTelemetry
 * package at all. Only `@opentelemetry/api` is used here (loaded through otel-api.ts).
 *
 * Attributes name the delivery (id, trigger, the sender's attempt), the relay try and its target
 * (through the one redaction rule, core/url-secrets.ts); never a secret, a signature, a body or a
 * header value besides those.
 */
import type { Attributes, Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { cappedId } from '../core/envelope.js';
import { displayUrl } from '../core/url-secrets.js';
import type * as OtelApi from './otel-api.js';

type Api = typeof OtelApi;

interface Active {
  api: Api;
  tracer: Tracer;
}

let active: Active | null = null;

/** True while a tracer is in use (start-tracing.ts); false: every helper here returns null. */
export const tracingOn = (): boolean => active !== null;

/** Called by start-tracing.ts (and tests) with the loaded API and the SDK's tracer; null turns tracing off. */
export function useTracer(api: Api | null, tracer: Tracer | null): void {
  active = api && tracer ? { api, tracer } : null;
  remembered.clear();
}

/** Where a span hangs: the context of the arrival, or of a sender's `traceparent`. Opaque to callers. */
export type TraceParent = Context;

// ── W3C trace context (https://www.w3.org/TR/trace-context/) ─────────────────────────────────────

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** A `traceparent` value as a remote span context; null when it is not a valid one. */
function parseTraceparent(api: Api, value: string | undefined, tracestate: string | undefined): SpanContext | null {
  if (value === undefined) return null;
  const m = TRACEPARENT.exec(value.trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return null;
  const context: SpanContext = { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16), isRemote: true };
  if (!api.isSpanContextValid(context)) return null;
  if (tracestate !== undefined && tracestate.length <= 512) context.traceState = api.createTraceState(tracestate);
  return context;
}

/** The `traceparent` (and `tracestate`) that makes `context` the parent of what the receiver does. */
function formatTraceparent(context: SpanContext): { traceparent: string; tracestate?: string } {
  const traceparent = `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = context.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

const single = (value: string | readonly string[] | undefined): string | undefined => (typeof value === 'string' ? value : value?.[0]);

function parentOf(api: Api, traceparent: string | undefined, tracestate: string | undefined): Context {
  const remote = parseTraceparent(api, traceparent, tracestate);
  return remote ? api.trace.setSpanContext(api.ROOT_CONTEXT, remote) : api.ROOT_CONTEXT;
}

/** The sender's trace context among a stored delivery's header lines, as the parent of a relay try or bridge send. */
function parentFromPairs(api: Api, headers: ReadonlyArray<readonly [string, string]>): Context {
  let traceparent: string | undefined;
  let tracestate: string | undefined;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower === 'traceparent') traceparent ??= value;
    else if (lower === 'tracestate') tracestate ??= value;
  }
  return parentOf(api, traceparent, tracestate);
}

// ── The arrival's context, kept for the relay tries and bridge sends of the same process ─────────

/**
 * Bounded: a try past it (a retry much later, a restart) hangs under the sender's `traceparent`
 * instead. Two generations of at most REMEMBERED_MAX / 2 each, the older dropped whole when the newer
 * fills: deleting a Map's oldest key one at a time leaves holes that the next `keys().next()` walks
 * over (~4 µs an arrival, measured under load).
 */
const REMEMBERED_MAX = 10_000;
const remembered = {
  newer: new Map<string, SpanContext>(),
  older: new Map<string, SpanContext>(),
  clear() {
    this.newer = new Map();
    this.older = new Map();
  },
  get(deliveryId: string): SpanContext | undefined {
    return this.newer.get(deliveryId) ?? this.older.get(deliveryId);
  },
};

function remember(deliveryId: string, context: SpanContext): void {
  if (remembered.newer.size >= REMEMBERED_MAX / 2) {
    remembered.older = remembered.newer;
    remembered.newer = new Map();
  }
  remembered.newer.set(deliveryId, context);
}

function parentOfDelivery(api: Api, deliveryId: string, headers: ReadonlyArray<readonly [string, string]>): Context {
  const arrival = remembered.get(deliveryId);
  return arrival ? api.trace.setSpanContext(api.ROOT_CONTEXT, arrival) : parentFromPairs(api, headers);
}

// ── The arrival ───────────────────────────────────────────────────────────────────────────────────

export type ArrivalStep = 'verify' | 'fault_rules' | 'commit';

/** What an arrival span is told of the arrival: the headers as received. */
export interface ArrivalInfo {
  source: 'http' | 'bridge';
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** What the span is told at its end: the attempt as recorded. */
export interface ArrivalEnding {
  outcome: string;
  status: number | null;
  reason: string | null;
}

/**
 * The attributes a step is recorded in, `hookrelay.<step>.result` and `hookrelay.<step>.duration_ms`.
 * The fault rules run before verification and, when none of those fired, after it: two steps.
 */
export type StepSlot = 'fault_rules_before_verify' | 'verify' | 'fault_rules_after_verify' | 'commit';
const STEP_KEYS: Readonly<Record<StepSlot, readonly [result: string, duration: string]>> = {
  fault_rules_before_verify: ['hookrelay.fault_rules_before_verify.result', 'hookrelay.fault_rules_before_verify.duration_ms'],
  verify: ['hookrelay.verify.result', 'hookrelay.verify.duration_ms'],
  fault_rules_after_verify: ['hookrelay.fault_rules_after_verify.result', 'hookrelay.fault_rules_after_verify.duration_ms'],
  commit: ['hookrelay.commit.result', 'hookrelay.commit.duration_ms'],
};

/**
 * One arrival's span. Its steps and its answer are attributes of the span, not spans of their own
 * (a span costs the SDK an id, a context and an exported record: three spans an arrival took receive
 * with tracing on to 0.68× of a build without the tracing code) nor events (an event is an object tree of its own in every export, whose
 * JSON is the largest part of the SDK's cost: tracing's CPU an arrival went from 29.6 µs with the
 * steps and the answer as events to 18.6 µs with the same as attributes; docs/operate.md, "Traces").
 * They are gathered here and given to the span as it ends, after its outcome: a low
 * OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT drops steps before the outcome.
 */
export class ArrivalTrace {
  private verifyStarted = false;
  private withSpan: Context | null = null;

  constructor(
    private readonly api: Api,
    readonly span: Span,
    private readonly parent: Context,
    /** What the span gets as it ends; null when it records nothing (sampled out): then nothing is gathered or timed. */
    private readonly attributes: Attributes | null,
  ) {}

  /** Whether the span records: a step of one sampled out is not timed. */
  get recording(): boolean {
    return this.attributes !== null;
  }

  /** The arrival span's context: the parent of a sync hand-off. Made when first asked for. */
  get context(): TraceParent {
    return (this.withSpan ??= this.api.trace.setSpan(this.parent, this.span));
  }

  /** One step under way; endStep records its result and duration. */
  step(name: ArrivalStep): ArrivalStepMark {
    let slot: StepSlot;
    if (name === 'fault_rules') slot = this.verifyStarted ? 'fault_rules_after_verify' : 'fault_rules_before_verify';
    else {
      if (name === 'verify') this.verifyStarted = true;
      slot = name;
    }
    return { trace: this, name, slot, startedAt: this.attributes === null ? 0 : performance.now() };
  }

  /** @internal endStep's: a step's result and how long it took (ms, to the µs). */
  recordStep(slot: StepSlot, result: string, ms: number): void {
    if (this.attributes === null) return;
    const [resultKey, durationKey] = STEP_KEYS[slot];
    this.attributes[resultKey] = result;
    this.attributes[durationKey] = ms;
  }

  /** The delivery was stored (not a duplicate): its relay tries and bridge sends hang under this arrival. */
  stored(deliveryId: string): void {
    remember(deliveryId, this.span.spanContext());
  }

  /** The answer the pipeline decided (the bytes follow on the socket): its kind, and the status it carries. */
  answered(kind: string, status: number | undefined): void {
    if (this.attributes === null) return;
    this.attributes['hookrelay.answer.kind'] = kind;
    if (status !== undefined) this.attributes['http.response.status_code'] = status;
  }

  end(ending: ArrivalEnding): void {
    const attributes = this.attributes;
    if (attributes !== null) {
      // The outcome first: the SDK keeps the first attributes up to its limit.
      const outcome: Attributes = { 'hookrelay.arrival.outcome': ending.outcome };
      // The status recorded is the one answered (null when none was: a reset, a close, a hang).
      if (ending.status !== null) outcome['http.response.status_code'] = attributes['http.response.status_code'] = ending.status;
      if (ending.outcome === 'rejected' || ending.outcome === 'unavailable') {
        if (ending.reason) outcome['hookrelay.refusal.code'] = ending.reason.slice(0, 64);
        this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: ending.reason ?? ending.outcome });
      }
      this.span.setAttributes(outcome);
      this.span.setAttributes(attributes);
    }
    this.span.end();
  }

  /** The arrival threw (the receiver answers 500), or its record failed: the span keeps what was known by then, with an error status. */
  fail(err: unknown): void {
    if (this.attributes !== null) this.span.setAttributes(this.attributes);
    this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
    this.span.end();
  }
}

/** A step of an arrival (fault rules, verify, commit) under way: opaque to the pipeline. */
export interface ArrivalStepMark {
  trace: ArrivalTrace;
  name: ArrivalStep;
  /** Which attributes it goes in: a fault rules step before or after verification. */
  slot: StepSlot;
  /** performance.now() at its start. */
  startedAt: number;
}

/** Records a step as two attributes of its arrival's span: what it came to (`ok`, a refusal code, `stored`, `duplicate`…) and how long it took. */
export function endStep(step: ArrivalStepMark, result: string): void {
  if (!step.trace.recording) return;
  step.trace.recordStep(step.slot, result, Math.round((performance.now() - step.startedAt) * 1000) / 1000);
}

/** An arrival's span, continuing the sender's `traceparent`; null while tracing is off. */
export function startArrival(info: ArrivalInfo): ArrivalTrace | null {
  if (active === null) return null;
  const { api, tracer } = active;
  const { headers } = info;
  const parent = parentOf(api, single(headers['traceparent']), single(headers['tracestate']));
  const span = tracer.startSpan('hookrelay.arrival', { kind: info.source === 'http' ? api.SpanKind.SERVER : api.SpanKind.CONSUMER }, parent);
  if (!span.isRecording()) return new ArrivalTrace(api, span, parent, null);
  const attributes: Attributes = { 'hookrelay.arrival.source': info.source };
  addDeliveryAttributes(attributes, single(headers['x-service-delivery']), single(headers['x-service-event']), single(headers['x-service-delivery-attempt']));
  return new ArrivalTrace(api, span, parent, attributes);
}

function addDeliveryAttributes(attributes: Attributes, id: string | undefined, trigger: string | undefined, attempt: string | undefined): void {
  if (id !== undefined) attributes['hookrelay.delivery.id'] = cappedId(id);
  if (trigger !== undefined) attributes['hookrelay.delivery.trigger'] = cappedId(trigger);
  const n = attempt === undefined ? NaN : Number(attempt);
  if (Number.isSafeInteger(n) && n > 0) attributes['hookrelay.delivery.attempt'] = n;
}

function setDeliveryAttributes(span: Span, id: string | undefined, trigger: string | undefined, attempt: string | undefined): void {
  const attributes: Attributes = {};
  addDeliveryAttributes(attributes, id, trigger, attempt);
  span.setAttributes(attributes);
}

function headerOf(headers: ReadonlyArray<readonly [string, string]>, name: string): string | undefined {
  for (const [n, v] of headers) if (n.toLowerCase() === name) return v;
  return undefined;
}

// ── A relay try ───────────────────────────────────────────────────────────────────────────────────

/** A relay try in flight: the `traceparent` its request carries, ended with the target's answer. */
export interface RelayTrySpan {
  traceparent: string;
  tracestate?: string;
  end(answer: { status: number | null; error: string | null }): void;
}

/**
 * A relay try's span (the relay worker's tries, replays, the sync hand-off): under the arrival that
 * stored the delivery when this process saw it, else under the sender's `traceparent`; null while
 * tracing is off.
 */
export function startRelayTry(
  delivery: { id: string; headers: ReadonlyArray<readonly [string, string]> },
  target: string,
  mark: { relayTry: number; replay: boolean },
  parent?: TraceParent,
): RelayTrySpan | null {
  if (active === null) return null;
  const { api, tracer } = active;
  const span = tracer.startSpan('hookrelay.relay_try', { kind: api.SpanKind.CLIENT }, parent ?? parentOfDelivery(api, delivery.id, delivery.headers));
  if (span.isRecording()) {
    setDeliveryAttributes(span, delivery.id, headerOf(delivery.headers, 'x-service-event'), headerOf(delivery.headers, 'x-service-delivery-attempt'));
    span.setAttribute('hookrelay.relay.try', mark.relayTry);
    span.setAttribute('hookrelay.relay.replay', mark.replay);
    span.setAttribute('http.request.method', 'POST');
    span.setAttribute('url.full', displayUrl(target));
  }
  const carried = formatTraceparent(span.spanContext());
  return {
    ...carried,
    end(answer) {
      if (span.isRecording()) {
        if (answer.status !== null) span.setAttribute('http.response.status_code', answer.status);
        if (answer.error !== null) span.setStatus({ code: api.SpanStatusCode.ERROR, message: answer.error });
      }
      span.end();
    },
  };
}

// ── The bridge ────────────────────────────────────────────────────────────────────────────────────

/** A delivery sent to a bridge subscriber, until it acknowledges it. */
export interface BridgeSendSpan {
  /** The subscriber acknowledged it (its commit is done): an ack span, then the send ends. */
  acked(): void;
  /** The connection went before an ack. */
  lost(why: string): void;
}

/** The public side's send of one delivery to one subscriber; null while tracing is off. */
export function startBridgeSend(
  delivery: { id: string; seq: number; trigger: string; headers: ReadonlyArray<readonly [string, string]> },
  subscriber: string,
): BridgeSendSpan | null {
  if (active === null) return null;
  const { api, tracer } = active;
  const span = tracer.startSpan('hookrelay.bridge.send', { kind: api.SpanKind.PRODUCER }, parentOfDelivery(api, delivery.id, delivery.headers));
  if (span.isRecording()) {
    setDeliveryAttributes(span, delivery.id, delivery.trigger, headerOf(delivery.headers, 'x-service-delivery-attempt'));
    span.setAttribute('hookrelay.bridge.seq', delivery.seq);
    span.setAttribute('hookrelay.bridge.subscriber', subscriber.slice(0, 128));
  }
  const context = api.trace.setSpan(api.ROOT_CONTEXT, span);
  return {
    acked() {
      tracer.startSpan('hookrelay.bridge.ack', { kind: api.SpanKind.SERVER }, context).end();
      span.end();
    },
    lost(why) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: why });
      span.end();
    },
  };
}
