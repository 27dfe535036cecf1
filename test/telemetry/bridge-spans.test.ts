/**
 * Issue 39, item 2: the bridge's spans. The public `listen` sends a delivery to a `connect` laptop
 * (`hookrelay.bridge.send`, under the public arrival) and gets its ack (`hookrelay.bridge.ack`,
 * under the send); the laptop's own arrival continues the sender's trace from the delivery's
 * headers, and its hand-off carries the laptop's relay try to the app. Both nodes run as processes
 * with the OTEL_* variables set, exporting to one receiver the test starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEntry } from '../helpers/cli-entry.js';
import { startListenProcess } from '../helpers/listen-process.js';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { freePort, startTarget } from '../helpers/target-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const TOKEN = 'trace-token-0123456789abcdefghijklmnopqrstuvwxyz';
const open: Array<() => unknown> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

/** `hookrelay connect` with these OTEL_* variables, resolved once it is live. */
async function connect(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; exited: Promise<unknown[]> }> {
  const child = spawn(process.execPath, [...cliEntry(), 'connect', ...args, '--log-format', 'json'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  open.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"msg":"live"')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then(() => reject(new Error(`connect exited before it was live:\n${out}`)));
  });
  return { child, exited };
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe('bridge spans (issue 39, item 2)', () => {
  it('traces the send to a subscriber and its ack, and the laptop continues the same trace to its app', async () => {
    const receiver = await startOtlpReceiver();
    open.push(() => receiver.close());
    const app = await startTarget();
    open.push(() => app.close());
    const { dir, remove } = tempDir('hookrelay-bridge-traces-');
    open.push(remove);
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' };

    const bridgePort = await freePort();
    const pub = await startListenProcess(['--db', join(dir, 'public.db'), '--secret', TEST_SECRET, '--no-console', '--bridge-port', String(bridgePort), '--bridge-token', `laptop:${TOKEN}`], { ...otel, OTEL_SERVICE_NAME: 'public-side' });
    open.push(() => pub.child.kill('SIGKILL'));
    const laptop = await connect([`ws://127.0.0.1:${bridgePort}/bridge`, '--token', TOKEN, '--name', 'desk', '--db', join(dir, 'laptop.db'), '--forward-to', app.url, '--forward-secret', 'whsec_laptop_0123456789abcdef', '--no-console'], otel);

    const traceId = randomBytes(16).toString('hex');
    const senderSpan = randomBytes(8).toString('hex');
    const request = signedRequest({ t: Math.floor(Date.now() / 1000) });
    const res = await fetch(pub.url, { method: 'POST', headers: { ...request.headers, traceparent: `00-${traceId}-${senderSpan}-01` }, body: new Uint8Array(request.body) });
    expect(res.status).toBe(200);
    await app.waitFor(1);
    await receiver.waitFor((spans) => named(spans, 'hookrelay.bridge.ack').length === 1 && named(spans, 'hookrelay.relay_try').length === 1 && named(spans, 'hookrelay.arrival').length === 2);
    laptop.child.kill('SIGTERM');
    pub.child.kill('SIGTERM');
    await Promise.all([laptop.exited, pub.exited]);

    for (const span of receiver.spans) expect(span.traceId, span.name).toBe(traceId);
    const arrivals = named(receiver.spans, 'hookrelay.arrival');
    const publicArrival = arrivals.find((s) => s.resource['service.name'] === 'public-side')!;
    const laptopArrival = arrivals.find((s) => s.resource['service.name'] === 'hookrelay')!;
    const [send] = named(receiver.spans, 'hookrelay.bridge.send');
    const [ack] = named(receiver.spans, 'hookrelay.bridge.ack');
    const [relayTry] = named(receiver.spans, 'hookrelay.relay_try');

    expect(publicArrival.parentSpanId).toBe(senderSpan);
    expect(send!.parentSpanId).toBe(publicArrival.spanId);
    expect(send!.attributes).toMatchObject({ 'hookrelay.delivery.id': request.id, 'hookrelay.delivery.trigger': 'trustcenter.access_requested', 'hookrelay.bridge.subscriber': 'laptop/desk', 'hookrelay.bridge.seq': 1 });
    expect(ack!.parentSpanId).toBe(send!.spanId);
    expect(laptopArrival.attributes['hookrelay.arrival.source']).toBe('bridge');
    expect(laptopArrival.parentSpanId).toBe(senderSpan);
    expect(relayTry!.parentSpanId).toBe(laptopArrival.spanId);
    expect(app.received[0]!.headers.traceparent).toBe(`00-${traceId}-${relayTry!.spanId}-01`);
  });
});
