/** The WebSocket feed over real sockets: typed messages, backlog and resume, size cap, slow and dead clients. */
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { DEFAULT_FEED_LIMITS, type FeedLimits } from '../../src/console/console-options.js';
import { createFeed } from '../../src/console/feed.js';
import type { HubEvents } from '../../src/runtime/event-hub.js';
import type { AttemptRecord } from '../../src/store/store.js';
import { receive, startConsole, type ConsoleFixture } from './helpers/console-fixture.js';
import { closed, tryUpgrade } from './helpers/sockets.js';

let fx: ConsoleFixture;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await fx?.close();
});

async function open(query = '') {
  const result = await tryUpgrade(fx.port, { origin: fx.base, path: `/api/feed${query}`, protocols: ['hookrelay.v1'] });
  if (!result.opened) throw new Error(`upgrade refused: ${result.status}`);
  sockets.push(result.ws);
  return { ws: result.ws, ...result.feed };
}

const attempt = (seq: number, overrides: Partial<AttemptRecord> = {}): AttemptRecord => ({
  seq,
  deliveryId: `evt_${seq}`,
  trigger: 'trustcenter.access_requested',
  receivedAt: 1_000 + seq,
  finishedAt: 1_001 + seq,
  attemptHeader: 1,
  signatureTimestamp: 1,
  bodySha256: 'ab',
  bodyBytes: 2,
  outcome: 'faulted',
  status: 503,
  reason: 'rule r1: 503',
  retryAfter: '120',
  ...overrides,
});

/** Just enough of a ws socket for createFeed: open, reading everything, what it is sent kept as text. */
const fakeSocket = (sent: string[]) =>
  ({ readyState: 1, OPEN: 1, bufferedAmount: 0, send: (data: string | Buffer) => sent.push(String(data)), on: () => {}, ping: () => {}, terminate: () => {} }) as unknown as WebSocket;

/** Runs `body` with a feed of these limits on fake timers; the feed is closed and real timers restored after. */
function withFakeTimers(limits: Partial<FeedLimits>, body: (feed: ReturnType<typeof createFeed>) => void): void {
  vi.useFakeTimers();
  const feed = createFeed({ ...DEFAULT_FEED_LIMITS, ...limits }, () => {});
  try {
    body(feed);
  } finally {
    feed.close();
    vi.useRealTimers();
  }
}

const notice = (fx: ConsoleFixture) =>
  new Promise<HubEvents['notice']>((resolve) => {
    const off = fx.hub.on('notice', (n) => {
      off();
      resolve(n);
    });
  });

describe('feed messages', () => {
  it('pushes attempt, delivery, relay, rules and notice messages, numbered', async () => {
    fx = await startConsole({ redact: (t) => t.replaceAll('hunter2', '[secret]') });
    const client = await open();
    await client.next((m) => m.type === 'hello');
    await receive(fx.store, fx.hub, { id: 'evt_live' });
    fx.hub.emit('relay', { deliveryId: 'evt_live', target: 'http://127.0.0.1:3000/hooks', status: 502, ok: false, latencyMs: 12, replay: false, error: 'bad gateway hunter2', nextRetryAt: 99 });
    fx.hub.emit('rules', { rules: [{ id: 'r1' }], change: 'added' });
    fx.hub.emit('notice', { level: 'warn', message: 'password hunter2 leaked?' });
    const last = await client.next((m) => m.type === 'notice');

    const types = client.messages.filter((m) => m.type !== 'hello').map((m) => m.type);
    expect(types).toEqual(['attempt', 'delivery', 'relay', 'rules', 'notice']);
    expect(client.messages.slice(1).map((m) => m.n)).toEqual([1, 2, 3, 4, 5]);
    expect(client.messages[1]).toMatchObject({ type: 'attempt', data: { deliveryId: 'evt_live', outcome: 'accepted', skipVerify: false } });
    expect(client.messages[2]).toMatchObject({ type: 'delivery', data: { id: 'evt_live', secretHint: expect.any(String), bodyBytes: expect.any(Number) } });
    expect(client.messages[2]!.data).not.toHaveProperty('headers');
    expect(client.messages[3]).toMatchObject({ type: 'relay', data: { deliveryId: 'evt_live', ok: false, status: 502, error: 'bad gateway [secret]', nextRetryAt: 99 } });
    expect(client.messages[4]).toMatchObject({ type: 'rules', data: { change: 'added', count: 1, rules: [{ id: 'r1' }] } });
    expect(last).toMatchObject({ data: { level: 'warn', message: 'password [secret] leaked?' } });
  });

  it('announces deletions', async () => {
    fx = await startConsole({ remove: async () => true });
    const client = await open();
    const res = await fx.app.inject({ method: 'DELETE', url: '/api/deliveries/evt_x', headers: { host: fx.host, origin: fx.base } });
    expect(res.statusCode).toBe(200);
    expect(await client.next((m) => m.type === 'deleted')).toMatchObject({ data: { id: 'evt_x' } });
  });

  it('sends an oversized message without its data', async () => {
    fx = await startConsole({ feed: { maxMessageBytes: 600 } });
    const client = await open();
    fx.hub.emit('attempt', { attempt: attempt(1, { reason: 'x'.repeat(1000) }), skipVerify: false });
    fx.hub.emit('attempt', { attempt: attempt(2), skipVerify: false });
    await client.next((m) => m.n === 2);
    expect(client.messages[1]).toEqual({ n: 1, type: 'attempt', data: null, truncated: true });
    expect(client.raw.every((text) => Buffer.byteLength(text) <= 600)).toBe(true);
  });
});

describe('backlog and resume', () => {
  it('gives a late joiner the backlog, in order', async () => {
    fx = await startConsole({ feed: { backlog: 3 } });
    for (let i = 1; i <= 5; i++) fx.hub.emit('attempt', { attempt: attempt(i), skipVerify: false });
    const client = await open();
    await client.next((m) => m.n === 5);
    expect(client.messages[0]).toMatchObject({ type: 'hello', data: { n: 5, resync: false } });
    expect(client.messages.slice(1).map((m) => m.n)).toEqual([3, 4, 5]);
  });

  it('gives a late joiner an oversized message of the backlog without its data', async () => {
    fx = await startConsole({ feed: { maxMessageBytes: 600 } });
    fx.hub.emit('attempt', { attempt: attempt(1, { reason: 'x'.repeat(1000) }), skipVerify: false });
    fx.hub.emit('attempt', { attempt: attempt(2), skipVerify: false });
    const client = await open();
    await client.next((m) => m.n === 2);
    expect(client.messages[1]).toEqual({ n: 1, type: 'attempt', data: null, truncated: true });
    expect(client.messages[2]).toMatchObject({ n: 2, type: 'attempt', data: { seq: 2, skipVerify: false } });
  });

  it('serialises a message no console reads only when one joins while it is in the backlog, and once', async () => {
    const feed = createFeed({ ...DEFAULT_FEED_LIMITS, backlog: 2 }, () => {});
    let serialised = 0;
    const data = (id: number) => ({ id, toJSON: () => (serialised++, { id }) });
    for (let i = 1; i <= 3; i++) feed.publish('attempt', data(i));
    expect(serialised).toBe(0);
    const frames: string[][] = [[], []];
    for (const sent of frames) feed.attach(fakeSocket(sent), { since: null, epoch: null });
    // The first message fell out of the backlog unread; the other two were serialised for the first console only.
    expect(serialised).toBe(2);
    expect(frames[1]).toHaveLength(2);
    expect(JSON.parse(frames[1]![1]!)).toEqual([{ n: 2, type: 'attempt', data: { id: 2 } }, { n: 3, type: 'attempt', data: { id: 3 } }]);
    feed.close();
  });

  it('cuts a rules message to its limit when published, so the backlog never holds its rules', () => {
    const feed = createFeed({ ...DEFAULT_FEED_LIMITS, maxMessageBytes: 600 }, () => {});
    let serialised = 0;
    const rules = [{ id: 'r1', line: 'x'.repeat(1_000_000), toJSON: () => (serialised++, { id: 'r1', line: 'x'.repeat(1_000_000) }) }];
    feed.publish('rules', { change: 'added', count: 1, rules });
    expect(serialised).toBe(1);
    const sent: string[] = [];
    feed.attach(fakeSocket(sent), { since: null, epoch: null });
    expect(serialised).toBe(1);
    expect(JSON.parse(sent[1]!)).toEqual([{ n: 1, type: 'rules', data: null, truncated: true }]);
    feed.close();
  });

  it('gives a client that attaches after the last one left, before the window is sent, every message of that window once', () =>
    withFakeTimers({}, (feed) => {
      const first: string[] = [];
      let closeFirst = () => {};
      const leaving = { ...(fakeSocket(first) as unknown as Record<string, unknown>), on: (event: string, listener: () => void) => event === 'close' && (closeFirst = listener) } as unknown as WebSocket;
      feed.attach(leaving, { since: null, epoch: null });
      feed.publish('notice', { id: 1 });
      closeFirst();
      feed.publish('notice', { id: 2 });
      const second: string[] = [];
      feed.attach(fakeSocket(second), { since: null, epoch: null });
      vi.advanceTimersByTime(DEFAULT_FEED_LIMITS.flushIntervalMs);
      expect(second).toHaveLength(2);
      expect(second.slice(1).flatMap((text) => [JSON.parse(text)].flat() as Array<{ n: number }>).map((m) => m.n)).toEqual([1, 2]);
    }));

  it('gives a client that attaches mid-window the backlog before the window, and the window once, with the others', () =>
    withFakeTimers({}, (feed) => {
      const early: string[] = [];
      feed.attach(fakeSocket(early), { since: null, epoch: null });
      feed.publish('notice', { id: 1 });
      vi.advanceTimersByTime(DEFAULT_FEED_LIMITS.flushIntervalMs);
      feed.publish('notice', { id: 2 });
      const late: string[] = [];
      feed.attach(fakeSocket(late), { since: null, epoch: null });
      feed.publish('notice', { id: 3 });
      vi.advanceTimersByTime(DEFAULT_FEED_LIMITS.flushIntervalMs);
      const numbers = (frames: string[]) => frames.slice(1).map((text) => ([JSON.parse(text)].flat() as Array<{ n: number }>).map((m) => m.n));
      // The late client: message 1 from the backlog, then the window (2, 3) in the same frame as the early one's.
      expect(numbers(late)).toEqual([[1], [2, 3]]);
      expect(numbers(early)).toEqual([[1], [2, 3]]);
    }));

  it('sends the messages of one flush window to a client as one frame, and a window past its size at once', () =>
    // A 16 KiB cap: a window goes out early once it holds 1 KiB.
    withFakeTimers({ flushIntervalMs: 50, bufferCapBytes: 16 * 1024 }, (feed) => {
      const sent: string[] = [];
      feed.attach(fakeSocket(sent), { since: null, epoch: null });
      const framesAfterHello = () => sent.slice(1).map((text) => [JSON.parse(text)].flat() as Array<{ n: number }>);
      // Published in different turns (a group commit's answers each), within one window.
      for (let i = 1; i <= 5; i++) {
        feed.publish('notice', { i });
        vi.advanceTimersByTime(5);
      }
      expect(framesAfterHello()).toEqual([]);
      vi.advanceTimersByTime(25);
      expect(framesAfterHello().map((frame) => frame.map((m) => m.n))).toEqual([[1, 2, 3, 4, 5]]);

      // Past 1 KiB, the window does not wait for its end.
      for (let i = 6; i <= 20; i++) feed.publish('notice', { pad: 'x'.repeat(100) });
      vi.advanceTimersByTime(1);
      const frames = framesAfterHello();
      expect(frames.length).toBe(2);
      expect(frames[1]!.map((m) => m.n)).toEqual(Array.from({ length: 15 }, (_, i) => i + 6));
    }));

  it('sends nothing of a window still pending when the feed closes', () =>
    withFakeTimers({}, (feed) => {
      const sent: string[] = [];
      feed.attach(fakeSocket(sent), { since: null, epoch: null });
      feed.publish('notice', { id: 1 });
      feed.close();
      vi.advanceTimersByTime(DEFAULT_FEED_LIMITS.flushIntervalMs * 2);
      expect(sent).toHaveLength(1);
      expect(vi.getTimerCount()).toBe(0);
    }));

  it('resumes after `since` within the same epoch, and asks for a resync otherwise', async () => {
    fx = await startConsole({ feed: { backlog: 3 } });
    for (let i = 1; i <= 5; i++) fx.hub.emit('attempt', { attempt: attempt(i), skipVerify: false });
    const first = await open();
    const hello = await first.next((m) => m.type === 'hello');
    const epoch = (hello.data as { epoch: string }).epoch;

    const resumed = await open(`?since=4&epoch=${epoch}`);
    await resumed.next((m) => m.n === 5);
    expect(resumed.messages.map((m) => m.n ?? 'hello')).toEqual(['hello', 5]);
    expect(resumed.messages[0]).toMatchObject({ data: { resync: false } });

    for (const query of [`?since=1&epoch=${epoch}`, '?since=4&epoch=other-run', `?since=99&epoch=${epoch}`]) {
      const client = await open(query);
      await client.next((m) => m.n === 5);
      expect(client.messages[0], query).toMatchObject({ type: 'hello', data: { resync: true } });
      expect(client.messages.slice(1).map((m) => m.n)).toEqual([3, 4, 5]);
    }
  });
});

describe('slow and dead clients', () => {
  it('drops a client that does not read at the buffered-bytes cap, and keeps serving the others', async () => {
    fx = await startConsole({ feed: { bufferCapBytes: 128 * 1024, maxMessageBytes: 1024 * 1024, backlog: 1 } });
    const fast = await open();
    // A raw client that completes the handshake and then never reads another byte.
    const slow = connect(fx.port, '127.0.0.1');
    await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
    slow.write(
      `GET /api/feed HTTP/1.1\r\nHost: ${fx.host}\r\nOrigin: ${fx.base}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await new Promise<void>((resolve) => slow.once('data', () => resolve()));
    slow.pause();
    slow.on('error', () => undefined);
    const dropped = notice(fx);
    let done = false;
    void dropped.then(() => (done = true));
    const big = [{ id: 'r', blob: 'x'.repeat(64 * 1024) }];
    let sent = 0;
    while (!done && sent < 1000) {
      fx.hub.emit('rules', { rules: big, change: `push ${sent}` });
      sent += 1;
      // Let the sockets move bytes: the fast client drains, the slow one fills up.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // Kernel buffers hold a few MB; past that, only the cap can stop the growth.
    expect(done).toBe(true);
    const warning = await dropped;
    expect(warning).toMatchObject({ level: 'warn', message: expect.stringContaining('not reading') });
    // The fast client is still connected and gets what comes next.
    fx.hub.emit('notice', { level: 'info', message: 'after the drop' });
    await fast.next((m) => m.type === 'notice' && (m.data as { message: string }).message === 'after the drop');
    expect(fast.ws.readyState).toBe(WebSocket.OPEN);
    slow.destroy();
  });

  it('pings clients and drops one that stops answering', async () => {
    fx = await startConsole({ feed: { pingIntervalMs: 40 } });
    const alive = await open();
    await new Promise<void>((resolve) => alive.ws.once('ping', () => resolve()));

    // A client that does not answer pings, as a frozen tab would not.
    const dropped = notice(fx);
    const result = await tryUpgrade(fx.port, { origin: fx.base, autoPong: false });
    if (!result.opened) throw new Error('refused');
    sockets.push(result.ws);
    await closed(result.ws);
    expect(await dropped).toMatchObject({ level: 'warn', message: expect.stringContaining('keepalive') });
    expect(alive.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes a client that sends more than the payload cap', async () => {
    fx = await startConsole();
    const client = await open();
    const done = new Promise<number>((resolve) => client.ws.once('close', (code) => resolve(code)));
    client.ws.send('x'.repeat(4096));
    expect(await done).toBe(1009);
  });

  it('terminates every client when the server closes', async () => {
    fx = await startConsole();
    const client = await open();
    await fx.close();
    await closed(client.ws);
    expect(client.ws.readyState).toBe(WebSocket.CLOSED);
  });
});
