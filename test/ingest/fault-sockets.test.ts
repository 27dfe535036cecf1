/** What the socket-level answers do on the wire, seen by a raw TCP client (not through a sender). */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SLOW_HEADERS_STATUS_LINE } from '../../src/core/faults/index.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { rules, startFaultApp, type FaultApp } from './fault-helpers.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface RawClient {
  socket: Socket;
  received: () => string;
  /** Resolves when the server ends or breaks the connection: how, and what came before. */
  ended: Promise<{ how: 'end' | 'error'; code?: string }>;
}

/** Sends one signed delivery over a fresh connection and never gives up on its own. */
function rawPost(fa: FaultApp, attempt = 1): RawClient {
  const url = new URL(fa.app.receiverUrl);
  const req = signedRequest({ t: Math.floor(Date.now() / 1000), attempt });
  const head = [`POST ${url.pathname} HTTP/1.1`, `host: ${url.host}`, `content-length: ${req.body.length}`, ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`)];
  const socket = connect(Number(url.port), url.hostname);
  cleanups.push(() => socket.destroy());
  let data = '';
  socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
  const ended = new Promise<{ how: 'end' | 'error'; code?: string }>((resolve) => {
    socket.once('end', () => resolve({ how: 'end' }));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve({ how: 'error', code: err.code }));
  });
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  socket.write(req.body);
  return { socket, received: () => data, ended };
}

describe('reset and close', () => {
  it('reset destroys the connection with an RST: the client sees ECONNRESET and no bytes', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('reset') });
    const client = rawPost(fa);
    expect(await client.ended).toEqual({ how: 'error', code: 'ECONNRESET' });
    expect(client.received()).toBe('');
    expect(await fa.attempt((a) => a.outcome === 'faulted')).toMatchObject({ status: null, reason: 'fault:reset' });
  });

  it('close ends the connection cleanly (FIN) with no response', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('close') });
    const client = rawPost(fa);
    expect(await client.ended).toEqual({ how: 'end' });
    expect(client.received()).toBe('');
    expect(await fa.connectionsAfterClose()).toBe(0);
  });
});

describe('hang', () => {
  it('slow-headers sends the status line and nothing more', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('hang slow-headers') });
    const client = rawPost(fa);
    await once(client.socket, 'data');
    expect(client.received()).toBe(SLOW_HEADERS_STATUS_LINE);
    client.socket.destroy();
    expect(await fa.attempt((a) => a.outcome === 'faulted')).toMatchObject({ status: null, reason: 'fault:hang slow-headers' });
    expect(client.received()).toBe(SLOW_HEADERS_STATUS_LINE);
  });

  it('releases the socket at the cap when the client never gives up, and records the attempt then', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('hang'), hangCapMs: 50 });
    const client = rawPost(fa);
    await client.ended;
    expect(client.received()).toBe('');
    expect(await fa.attempt((a) => a.outcome === 'faulted')).toMatchObject({ status: null, reason: 'fault:hang' });
    expect(await fa.connectionsAfterClose()).toBe(0);
  });

  it('does not hold up a shutdown: close() ends hung connections and wakes delays, which finish normally', async () => {
    const fa = await startFaultApp(cleanups, { faultRules: rules('hang attempt=1', 'delay=3600000 attempt=2'), hangCapMs: 3_600_000 });
    const fired = firings(fa, 2);
    const hung = rawPost(fa);
    const delayed = rawPost(fa, 2);
    await fired;
    await fa.app.close();
    expect((await hung.ended).how).toBe('end');
    expect(await fa.attempt((a) => a.reason === 'fault:hang attempt=1')).toMatchObject({ outcome: 'faulted', status: null });
    await delayed.ended;
    expect(delayed.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});

/** Resolves once `n` rules have fired: the hang and the delay are then holding their connections. */
function firings(fa: FaultApp, n: number): Promise<void> {
  const faults = fa.app.faults;
  const decide = faults.decide.bind(faults);
  let count = 0;
  return new Promise((resolve) => {
    faults.decide = (arrival) => {
      const decision = decide(arrival);
      if (decision.matched && ++count === n) resolve();
      return decision;
    };
  });
}
