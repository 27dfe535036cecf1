/**
 * Issue 39, item 2: one delivery's trace, from a sender that sends `traceparent` to an app that
 * reads it, is one tree in an OTLP receiver the test starts: the sender's span → hookrelay's
 * arrival (its verify, commit and answer as attributes) → the relay try → the app's parent. `listen` runs as
 * a process, configured by the standard OTEL_* variables only. Without them, the hand-off carries
 * no traceparent and nothing is exported.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startListenProcess, type ListenProcess } from '../helpers/listen-process.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startTarget, type Target } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const TARGET_PASSWORD = 'pw-not-for-traces';
const open: Array<() => unknown> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

async function listen(args: string[], env: Record<string, string>): Promise<ListenProcess> {
  const { dir, remove } = tempDir('hookrelay-traces-');
  open.push(remove);
  const node = await startListenProcess(['--db', join(dir, 'hooks.db'), '--secret', TEST_SECRET, '--no-console', ...args], env);
  open.push(async () => {
    if (node.child.exitCode === null && node.child.signalCode === null) {
      node.child.kill('SIGKILL');
      await node.exited;
    }
  });
  return node;
}

/** Stops the node as an operator does (SIGTERM: a clean close, which flushes the spans). */
async function stop(node: ListenProcess): Promise<void> {
  node.child.kill('SIGTERM');
  const [code] = await node.exited;
  expect(code, node.output()).toBe(0);
}

async function send(url: string, extra: Record<string, string>): Promise<{ status: number; id: string; signature: string; body: Buffer }> {
  const request = signedRequest({ t: Math.floor(Date.now() / 1000) });
  const res = await fetch(url, { method: 'POST', headers: { ...request.headers, ...extra }, body: new Uint8Array(request.body) });
  await res.arrayBuffer();
  return { status: res.status, id: request.id, signature: request.headers['x-service-signature']!, body: request.body };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

async function services(): Promise<{ receiver: OtlpReceiver; app: Target }> {
  const receiver = await startOtlpReceiver();
  open.push(() => receiver.close());
  const app = await startTarget();
  open.push(() => app.close());
  return { receiver, app };
}

describe('traces through OTEL_* (issue 39, item 2)', () => {
  it('makes one tree of a delivery: sender → arrival (verify, commit and answer as its attributes) → relay try → the app', async () => {
    const { receiver, app } = await services();
    const target = app.url.replace('http://', `http://bob:${TARGET_PASSWORD}@`);
    const node = await listen(['--forward-to', target], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' });

    const traceId = hex(16);
    const senderSpan = hex(8);
    const sent = await send(node.url, { traceparent: `00-${traceId}-${senderSpan}-01`, tracestate: 'sender=1' });
    expect(sent.status).toBe(200);
    await app.waitFor(1);
    await receiver.waitFor((spans) => named(spans, 'hookrelay.relay_try').length === 1 && named(spans, 'hookrelay.arrival').length === 1);
    await stop(node);

    const [arrival] = named(receiver.spans, 'hookrelay.arrival');
    const [relayTry] = named(receiver.spans, 'hookrelay.relay_try');
    // One trace, the sender's.
    for (const span of receiver.spans) expect(span.traceId, span.name).toBe(traceId);
    expect(arrival!.parentSpanId).toBe(senderSpan);
    // Its steps are attributes of the arrival, not spans: two spans for the delivery, the arrival and the try.
    expect(receiver.spans.map((span) => span.name).sort()).toEqual(['hookrelay.arrival', 'hookrelay.relay_try']);
    expect(relayTry!.parentSpanId).toBe(arrival!.spanId);
    // The app's own trace hangs under the relay try.
    const carried = app.received[0]!.headers;
    expect(carried.traceparent).toBe(`00-${traceId}-${relayTry!.spanId}-01`);
    expect(carried.tracestate).toBe('sender=1');

    expect(arrival!.resource['service.name']).toBe('hookrelay');
    expect(arrival!.attributes).toMatchObject({ 'hookrelay.delivery.id': sent.id, 'hookrelay.delivery.trigger': 'trustcenter.access_requested', 'hookrelay.delivery.attempt': 1, 'hookrelay.arrival.source': 'http', 'hookrelay.arrival.outcome': 'accepted', 'http.response.status_code': 200 });
    // Each step's result and duration, the answer's kind; no events (each would be an object tree of its own in every export).
    expect(arrival!.attributes).toMatchObject({ 'hookrelay.verify.result': 'ok', 'hookrelay.commit.result': 'stored', 'hookrelay.answer.kind': 'answer' });
    for (const step of ['verify', 'commit']) expect(arrival!.attributes[`hookrelay.${step}.duration_ms`], step).toBeGreaterThanOrEqual(0);
    expect(Object.keys(arrival!.attributes).filter((key) => key.includes('fault_rules'))).toEqual([]);
    expect(arrival!.events).toEqual([]);
    expect(relayTry!.attributes).toMatchObject({ 'hookrelay.delivery.id': sent.id, 'hookrelay.delivery.trigger': 'trustcenter.access_requested', 'hookrelay.delivery.attempt': 1, 'hookrelay.relay.try': 1, 'hookrelay.relay.replay': false, 'http.response.status_code': 200 });
    expect(relayTry!.attributes['url.full']).toBe(app.url.replace('http://', 'http://[redacted]@'));
    // No secret, signature, body or URL credential in anything exported.
    const exported = receiver.bodies.join('\n');
    for (const secret of [TEST_SECRET, sent.signature, TARGET_PASSWORD, sent.body.toString('utf8'), 'accessRequestId']) expect(exported).not.toContain(secret);
  });

  it('carries no traceparent to the app and exports nothing without OTEL_* (or with OTEL_SDK_DISABLED=true)', async () => {
    const { receiver, app } = await services();
    const envs: Array<Record<string, string>> = [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SDK_DISABLED: 'true' }, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_TRACES_EXPORTER: 'none' }];
    for (const env of envs) {
      const node = await listen(['--forward-to', app.url], env);
      const before = app.received.length;
      const sent = await send(node.url, { traceparent: `00-${hex(16)}-${hex(8)}-01` });
      expect(sent.status).toBe(200);
      await app.waitFor(before + 1);
      await stop(node);
      const handedOn = app.received[before]!.headers;
      expect(handedOn.traceparent, JSON.stringify(env)).toBeUndefined();
      expect(handedOn.tracestate).toBeUndefined();
      // Exactly the headers docs/relay.md lists, as before tracing existed.
      expect(Object.keys(handedOn).sort()).toEqual(
        ['connection', 'content-length', 'content-type', 'host', 'user-agent', 'x-hookrelay-received-at', 'x-hookrelay-relay-try', 'x-hookrelay-relayed', 'x-hookrelay-replay', 'x-service-api-version', 'x-service-delivery', 'x-service-delivery-attempt', 'x-service-event', 'x-service-signature'],
      );
    }
    expect(receiver.bodies).toEqual([]);
  });

  it('starts with a bad OTEL_* value, and says which in one line', async () => {
    const { app } = await services();
    const node = await listen(['--forward-to', app.url], { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url', OTEL_SDK_DISABLED: 'maybe' });
    const sent = await send(node.url, {});
    expect(sent.status).toBe(200);
    await app.waitFor(1);
    await stop(node);
    expect(app.received[0]!.headers.traceparent).toBeUndefined();
    expect(node.output()).toContain('OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s):// URL: traces are off');
    expect(node.output()).toContain('OTEL_SDK_DISABLED=\\"maybe\\" is neither true nor false');
  });
});
