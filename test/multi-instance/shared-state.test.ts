/** What instances on one PostgreSQL database share beyond the deliveries: arrival counts for fault rules, and live events. */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { createEventHub, type HubEvents } from '../../src/runtime/event-hub.js';
import { shareHubThroughPostgres, type SharedHub } from '../../src/store/postgres/pg-shared-hub.js';
import type { ListenProcess } from '../helpers/listen-process.js';
import { useTestPostgres } from '../setup/postgres-test-url.js';
import { post, startInstance, stopInstance } from './fleet.js';

const server = useTestPostgres();
const running: ListenProcess[] = [];
const bridges: SharedHub[] = [];
afterAll(async () => {
  await Promise.all(running.map((l) => stopInstance(l)));
  await Promise.all(bridges.map((b) => b.close()));
});

/** Resolves with the first feed message of the instance's console that carries `deliveryId`. */
function feedMessage(listen: ListenProcess, deliveryId: string): Promise<Record<string, unknown>> {
  const consoleUrl = new URL(/"console":"(http:[^"]+)"/.exec(listen.output())![1]!);
  const origin = `http://${consoleUrl.host}`;
  const ws = new WebSocket(`ws://${consoleUrl.host}/api/feed`, 'hookrelay.v1', { origin });
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('message', (data) => {
      const parsed = JSON.parse(String(data)) as Record<string, unknown> | Array<Record<string, unknown>>;
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        if ((message.data as { deliveryId?: string } | undefined)?.deliveryId === deliveryId) {
          ws.terminate();
          resolve(message);
        }
      }
    });
  });
}

describe('instances sharing one PostgreSQL database', () => {
  it('count arrivals together: "503 arrival=1" answers the first arrival, and the retry on another instance is accepted', async () => {
    const url = await server.freshSchema();
    const [x, y] = await Promise.all([startInstance(url, 'x', ['--fault', '503 arrival=1', '--console-port', '0']), startInstance(url, 'y', ['--fault', '503 arrival=1'])]);
    running.push(x!, y!);
    const first = randomUUID();
    expect(await post(x!.url, first, 1)).toBe(503);
    expect(await post(y!.url, first, 2)).toBe(200);
    // The rule is live on y too: a first arrival there is answered 503.
    const second = randomUUID();
    expect(await post(y!.url, second, 1)).toBe(503);
    expect(await post(x!.url, second, 2)).toBe(200);
    // Events cross instances (LISTEN/NOTIFY): x's console shows an arrival only y saw.
    const third = randomUUID();
    const onX = feedMessage(x!, third);
    expect(await post(y!.url, third, 1)).toBe(503);
    expect(await onX).toMatchObject({ type: 'attempt', data: { deliveryId: third, status: 503, outcome: 'faulted' } });
  });

  it('bridge delivery and attempt events between hubs, never echoing an instance its own', async () => {
    const url = await server.freshSchema();
    const [h1, h2] = [createEventHub(), createEventHub()];
    bridges.push(await shareHubThroughPostgres(url, h1), await shareHubThroughPostgres(url, h2));
    const seen1: string[] = [];
    const seen2: string[] = [];
    h1.on('delivery', ({ delivery }) => seen1.push(delivery.id));
    h2.on('delivery', ({ delivery }) => seen2.push(delivery.id));
    const delivery = (id: string): HubEvents['delivery'] => ({
      delivery: {
        seq: 1, id, trigger: 'trustcenter.access_requested', apiVersion: '2026-06-01', apiVersionKnown: true, receivedAt: 1, headers: [],
        signature: 'valid', secretIndex: 0, signatureTimestamp: 1, duplicateCount: 0, lastAttemptAt: 1, bodyBytes: 10,
      },
    });
    const arrived2 = new Promise<void>((resolve) => h2.on('delivery', ({ delivery: d }) => d.id === 'from-1' && resolve()));
    h1.emit('delivery', delivery('from-1'));
    await arrived2;
    const attempt = new Promise<HubEvents['attempt']>((resolve) => h1.on('attempt', resolve));
    const arrived1 = new Promise<void>((resolve) => h1.on('delivery', ({ delivery: d }) => d.id === 'from-2' && resolve()));
    h2.emit('delivery', delivery('from-2'));
    h2.emit('attempt', {
      attempt: {
        seq: 0, deliveryId: 'from-2', trigger: null, receivedAt: 5, finishedAt: 6, attemptHeader: 1, signatureTimestamp: null,
        bodySha256: 'ab', bodyBytes: 2, outcome: 'rejected', status: 400, reason: 'SIGNATURE_MISSING', retryAfter: null,
      },
      skipVerify: false,
    });
    await arrived1;
    expect((await attempt).attempt).toMatchObject({ deliveryId: 'from-2', reason: 'SIGNATURE_MISSING' });
    // Notifications arrive in order: had h1's own event come back, it would be in seen1 before from-2.
    expect(seen1).toEqual(['from-1', 'from-2']);
    expect(seen2).toEqual(['from-1', 'from-2']);
  });
});
