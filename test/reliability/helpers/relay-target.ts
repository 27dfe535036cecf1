/**
 * The app hookrelay forwards to, for the reliability suite: records each hand-off's
 * `x-service-delivery`, whether it is a replay, and which `listen` lifetime ("epoch") sent it,
 * and can hold its answers back so that hand-offs are in flight when a stop comes.
 */
import { EventEmitter, once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Handoff {
  id: string;
  epoch: number;
  replay: boolean;
  relayTry: number;
  body: Buffer;
}

export interface RelayTarget {
  url: string;
  handoffs: Handoff[];
  /** Set by the test: which listen lifetime is running now. */
  epoch: number;
  /** Milliseconds each answer is held (a slow app). */
  delayMs: number;
  /** Resolves once every id in `ids` has been handed on, or rejects after `deadlineMs`. */
  waitForIds(ids: Iterable<string>, deadlineMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRelayTarget(): Promise<RelayTarget> {
  const events = new EventEmitter();
  const seen = new Set<string>();
  const target: RelayTarget = {
    url: '',
    handoffs: [],
    epoch: 0,
    delayMs: 0,
    async waitForIds(ids, deadlineMs) {
      const wanted = [...ids];
      const deadline = AbortSignal.timeout(deadlineMs);
      while (wanted.some((id) => !seen.has(id))) {
        try {
          await once(events, 'handoff', { signal: deadline });
        } catch {
          const left = wanted.filter((id) => !seen.has(id));
          throw new Error(`${left.length} acknowledged deliveries never reached the target within ${deadlineMs} ms (e.g. ${left.slice(0, 3).join(', ')})`);
        }
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = () => {
        // The sender is gone (killed while we held the answer): it never saw a 2xx.
        if (req.socket.destroyed) return;
        const id = String(req.headers['x-service-delivery']);
        target.handoffs.push({
          id,
          epoch: target.epoch,
          replay: req.headers['x-hookrelay-replay'] === 'true',
          relayTry: Number(req.headers['x-hookrelay-relay-try']),
          body: Buffer.concat(chunks),
        });
        seen.add(id);
        res.statusCode = 200;
        res.end('{"ok":true}');
        events.emit('handoff');
      };
      // The slow app holds its answer: the hand-off is in flight for this long.
      if (target.delayMs > 0) setTimeout(answer, target.delayMs);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return target;
}
