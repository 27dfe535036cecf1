/**
 * A TCP proxy that can go silent: `stall()` makes every connection open now swallow what either
 * side sends, without closing (as a dead network or a suspended NAT does). Connections made
 * after it forward again, so a client that notices and reconnects gets through.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface StallProxy {
  port: number;
  /** Connections made so far. */
  connections(): number;
  stall(): void;
  /**
   * Lets the next chunk from upstream through to its client (on an idle connection, the pong to the
   * client's ping), then stalls: the client heard the server last at about the time this resolves with.
   */
  stallAfterNextFromUpstream(): Promise<number>;
  close(): Promise<void>;
}

export async function startStallProxy(upstreamPort: number): Promise<StallProxy> {
  const pairs: Array<{ client: Socket; upstream: Socket; stalled: boolean }> = [];
  let afterNext: ((at: number) => void) | null = null;
  const stall = () => {
    for (const pair of pairs) pair.stalled = true;
  };
  const server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    const pair = { client, upstream, stalled: false };
    pairs.push(pair);
    client.on('data', (chunk) => pair.stalled || upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (pair.stalled) return;
      client.write(chunk);
      if (afterNext === null) return;
      stall();
      afterNext(Date.now());
      afterNext = null;
    });
    // A stalled path carries no close either: each side keeps a connection the other has dropped.
    client.on('close', () => pair.stalled || upstream.destroy());
    upstream.on('close', () => pair.stalled || client.destroy());
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => pairs.length,
    stall,
    stallAfterNextFromUpstream: () => new Promise<number>((resolve) => (afterNext = resolve)),
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
