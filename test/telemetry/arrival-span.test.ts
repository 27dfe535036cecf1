/**
 * The arrival's span as tracing.ts makes it, in process, through the SDK to an in-memory exporter:
 * each step's result and duration and the answer are attributes of the one span (no events), the
 * fault rules before and after verification kept apart, and what a refusal, a fault's answer
 * without a status and a failed arrival leave on it.
 */
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from '../../src/telemetry/otel-api.js';
import { endStep, startArrival, startRelayTry, useTracer, type ArrivalTrace } from '../../src/telemetry/tracing.js';

// Each test its own: a provider's shutdown stops its exporter for good.
let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  useTracer(api, provider.getTracer('test'));
});
afterEach(async () => {
  useTracer(null, null);
  await provider.shutdown();
});

const headers = { 'x-service-delivery': 'evt_1', 'x-service-event': 'trustcenter.access_requested', 'x-service-delivery-attempt': '2' };

function arrival(): ArrivalTrace {
  const trace = startArrival({ source: 'http', headers });
  expect(trace).not.toBeNull();
  return trace!;
}

function only(): ReadableSpan {
  const spans = exporter.getFinishedSpans();
  expect(spans.map((s) => s.name)).toEqual(['hookrelay.arrival']);
  return spans[0]!;
}

describe('the arrival span', () => {
  it('carries each step and the answer as attributes, the fault rules before and after verification apart', () => {
    const trace = arrival();
    endStep(trace.step('fault_rules'), 'none');
    endStep(trace.step('verify'), 'ok');
    endStep(trace.step('fault_rules'), 'fired');
    endStep(trace.step('commit'), 'stored');
    trace.answered('answer', 200);
    trace.end({ outcome: 'accepted', status: 200, reason: null });

    const span = only();
    expect(span.events).toEqual([]);
    expect(span.attributes).toMatchObject({
      'hookrelay.arrival.source': 'http',
      'hookrelay.delivery.id': 'evt_1',
      'hookrelay.delivery.trigger': 'trustcenter.access_requested',
      'hookrelay.delivery.attempt': 2,
      'hookrelay.fault_rules_before_verify.result': 'none',
      'hookrelay.verify.result': 'ok',
      'hookrelay.fault_rules_after_verify.result': 'fired',
      'hookrelay.commit.result': 'stored',
      'hookrelay.answer.kind': 'answer',
      'http.response.status_code': 200,
      'hookrelay.arrival.outcome': 'accepted',
    });
    for (const step of ['fault_rules_before_verify', 'verify', 'fault_rules_after_verify', 'commit']) {
      const ms = span.attributes[`hookrelay.${step}.duration_ms`];
      expect(typeof ms, step).toBe('number');
      expect(ms as number).toBeGreaterThanOrEqual(0);
    }
    expect(span.status.code).toBe(api.SpanStatusCode.UNSET);
  });

  it('names a refusal: its code, the status, an error status, and no step it never reached', () => {
    const trace = arrival();
    endStep(trace.step('verify'), 'SIGNATURE_MISMATCH');
    trace.answered('answer', 400);
    trace.end({ outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISMATCH' });

    const span = only();
    expect(span.attributes).toMatchObject({ 'hookrelay.verify.result': 'SIGNATURE_MISMATCH', 'hookrelay.refusal.code': 'SIGNATURE_MISMATCH', 'http.response.status_code': 400, 'hookrelay.arrival.outcome': 'rejected' });
    expect(Object.keys(span.attributes).filter((key) => key.startsWith('hookrelay.commit') || key.includes('fault_rules'))).toEqual([]);
    expect(span.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'SIGNATURE_MISMATCH' });
  });

  it('keeps the kind of an answer without a status (a fault reset), and no status', () => {
    const trace = arrival();
    endStep(trace.step('fault_rules'), 'fired');
    trace.answered('reset', undefined);
    trace.end({ outcome: 'faulted', status: null, reason: 'rule 1' });

    const span = only();
    expect(span.attributes).toMatchObject({ 'hookrelay.fault_rules_before_verify.result': 'fired', 'hookrelay.answer.kind': 'reset', 'hookrelay.arrival.outcome': 'faulted' });
    expect(span.attributes['http.response.status_code']).toBeUndefined();
  });

  it('keeps what was known when the arrival failed', () => {
    const trace = arrival();
    endStep(trace.step('verify'), 'ok');
    trace.fail(new TypeError('boom'));

    const span = only();
    expect(span.attributes).toMatchObject({ 'hookrelay.delivery.id': 'evt_1', 'hookrelay.verify.result': 'ok' });
    expect(span.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'TypeError' });
  });

  it('is the parent of a sync hand-off through its context, made when asked for', () => {
    const trace = arrival();
    const handOff = startRelayTry({ id: 'evt_1', headers: [] }, 'http://127.0.0.1:1/hook', { relayTry: 1, replay: false }, trace.context);
    expect(trace.context).toBe(trace.context);
    handOff!.end({ status: 200, error: null });
    trace.end({ outcome: 'accepted', status: 200, reason: null });

    const spans = exporter.getFinishedSpans();
    const arrivalSpan = spans.find((s) => s.name === 'hookrelay.arrival')!;
    const relaySpan = spans.find((s) => s.name === 'hookrelay.relay_try')!;
    expect(relaySpan.parentSpanContext?.spanId).toBe(arrivalSpan.spanContext().spanId);
    expect(handOff!.traceparent).toBe(`00-${arrivalSpan.spanContext().traceId}-${relaySpan.spanContext().spanId}-01`);
  });

  it('gathers and times nothing for an arrival sampled out', () => {
    const sampledOut = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
    const span = sampledOut.getTracer('test').startSpan('probe');
    const setAttributes = vi.spyOn(Object.getPrototypeOf(span), 'setAttributes');
    const setAttribute = vi.spyOn(Object.getPrototypeOf(span), 'setAttribute');
    useTracer(api, sampledOut.getTracer('test'));
    const now = vi.spyOn(performance, 'now');
    try {
      const trace = arrival();
      expect(trace.span.isRecording()).toBe(false);
      endStep(trace.step('fault_rules'), 'none');
      endStep(trace.step('verify'), 'ok');
      trace.answered('answer', 200);
      trace.end({ outcome: 'accepted', status: 200, reason: null });
      expect(now).not.toHaveBeenCalled();
      expect(setAttributes).not.toHaveBeenCalled();
      expect(setAttribute).not.toHaveBeenCalled();
    } finally {
      now.mockRestore();
      setAttributes.mockRestore();
      setAttribute.mockRestore();
    }
  });

  it('gives the outcome before the steps, so a low attribute limit drops steps first', () => {
    const limited = new BasicTracerProvider({ spanLimits: { attributeCountLimit: 3 }, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    useTracer(api, limited.getTracer('test'));
    const trace = arrival();
    endStep(trace.step('verify'), 'ok');
    trace.end({ outcome: 'rejected', status: 401, reason: 'SIGNATURE_MISMATCH' });
    expect(only().attributes).toEqual({ 'hookrelay.arrival.outcome': 'rejected', 'http.response.status_code': 401, 'hookrelay.refusal.code': 'SIGNATURE_MISMATCH' });
  });
});
