/** Helpers for tests of several `listen` processes on one PostgreSQL database. */
import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { signedRequest, TEST_SECRET } from '../helpers/signed-delivery.js';
import { startListenProcess, type ListenProcess } from '../helpers/listen-process.js';

/** Starts `listen` on the shared store; with --forward-to, `name` goes out on every hand-off as `x-instance`. */
export function startInstance(storeUrl: string, name: string, extra: string[] = []): Promise<ListenProcess> {
  const tag = extra.includes('--forward-to') ? ['--forward-header', `X-Instance: ${name}`] : [];
  const consoleOff = extra.includes('--console-port') ? [] : ['--no-console'];
  return startListenProcess(['--store', storeUrl, '--secret', TEST_SECRET, ...consoleOff, ...tag, ...extra]);
}

/** Stops a process with SIGTERM (hand-offs in flight finish and are recorded) and waits for its exit. */
export async function stopInstance(listen: ListenProcess): Promise<void> {
  if (listen.child.exitCode === null && listen.child.signalCode === null) listen.child.kill('SIGTERM');
  await listen.exited;
}

/** POSTs a freshly signed copy of delivery `id`; the status, or null when the connection failed. */
export async function post(url: string, id: string, attempt: number): Promise<number | null> {
  const delivery = signedRequest({ id, attempt, t: Math.floor(Date.now() / 1000) });
  try {
    const res = await request(url, { method: 'POST', headers: delivery.headers, body: delivery.body, headersTimeout: 15_000, bodyTimeout: 15_000 });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return null;
  }
}

export interface RelayTarget {
  url: string;
  /** 2xx answers given, per delivery id. */
  okCount: Map<string, number>;
  /** Every hand-off that arrived whole, in order: its delivery id and the `x-instance` that sent it. */
  handoffs: Array<{ id: string; instance: string }>;
  /** Copies of an id that arrived after the target had answered it 2xx (must stay empty). */
  afterOk: string[];
  /** Ids whose hand-off came from a `hangFor` instance. */
  hung: Set<string>;
  /** Resolves once every id in `ids` was answered 2xx; with `deadlineMs`, rejects naming what is missing after it. */
  waitForAll(ids: Iterable<string>, deadlineMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The app behind the fleet. Hand-offs from the instances named in `hangFor` are never answered
 * (that instance's claims time out, or die with it); all others get a 200.
 */
export async function startRelayTarget(hangFor: ReadonlySet<string>): Promise<RelayTarget> {
  const okCount = new Map<string, number>();
  const handoffs: Array<{ id: string; instance: string }> = [];
  const afterOk: string[] = [];
  const hung = new Set<string>();
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-service-delivery'] ?? '');
      handoffs.push({ id, instance: String(req.headers['x-instance'] ?? '') });
      if (okCount.has(id)) afterOk.push(id);
      if (hangFor.has(String(req.headers['x-instance']))) {
        hung.add(id);
        return; // never answered
      }
      okCount.set(id, (okCount.get(id) ?? 0) + 1);
      res.statusCode = 200;
      res.end('{"ok":true}');
      events.emit('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    okCount,
    handoffs,
    afterOk,
    hung,
    async waitForAll(ids, deadlineMs) {
      const wanted = [...ids];
      const signal = deadlineMs === undefined ? undefined : AbortSignal.timeout(deadlineMs);
      while (wanted.some((id) => !okCount.has(id))) {
        try {
          await once(events, 'ok', { signal });
        } catch (err) {
          if (!signal?.aborted) throw err;
          const left = wanted.filter((id) => !okCount.has(id));
          throw new Error(`${left.length} of ${wanted.length} deliveries never reached the app within ${deadlineMs} ms (e.g. ${left.slice(0, 3).join(', ')})`);
        }
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
