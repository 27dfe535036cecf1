/**
 * A lean keep-alive HTTP/1.1 load generator for loopback: N connections, each sending one
 * freshly signed delivery (new id, new signature) at a time, for a fixed duration. Prints one
 * JSON line with counts and latency percentiles. Bounded in time; stops by itself.
 */
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { sign } from '../src/core/signature/sign.js';

interface Args {
  url: string;
  connections: number;
  durationMs: number;
  secret: string;
  /** Requests per second across all connections; 0 = as fast as the server answers. */
  rate: number;
}

function parseArgs(): Args {
  const [url, connections, durationMs, secret, rate] = process.argv.slice(2);
  return { url: url!, connections: Number(connections), durationMs: Number(durationMs), secret: secret!, rate: Number(rate ?? 0) };
}

const PAD = 'x'.repeat(330); // brings the body to ~600 bytes, as PERFORMANCE.md measured

function buildRequest(host: string, path: string, secret: string): Buffer {
  const id = randomUUID();
  const body = Buffer.from(
    `{"id":"${id}","type":"trustcenter.resource_downloaded","apiVersion":"2026-06-01","createdAt":"${new Date().toISOString()}","organizationId":"6f1c2b8e-1d7a-4c1e-9a55-0c2a1e7b9d10","data":{"accessEventId":"${randomUUID()}","resourceId":"c1","visitorTokenId":"v1","channel":"download","watermarked":true,"occurredAt":"2026-11-21T10:00:00Z","note":"${PAD}"}}`,
  );
  const t = Math.floor(Date.now() / 1000);
  const head =
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nUser-Agent: Service-Webhook/1\r\n` +
    `X-Service-Event: trustcenter.resource_downloaded\r\nX-Service-Delivery: ${id}\r\nX-Service-Delivery-Attempt: 1\r\n` +
    `X-Service-Api-Version: 2026-06-01\r\nX-Service-Signature: ${sign(secret, body, t)}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

async function main(): Promise<void> {
  const args = parseArgs();
  // Several receivers (comma-separated): connections are spread over them in turn.
  const urls = args.url.split(',').map((u) => new URL(u));
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let running = true;
  const started = performance.now();
  const deadline = started + args.durationMs;
  const interval = args.rate > 0 ? (1000 * args.connections) / args.rate : 0;

  const runConnection = (index: number): Promise<void> =>
    new Promise((done) => {
      const url = urls[index % urls.length]!;
      const socket: Socket = connect(Number(url.port), url.hostname);
      socket.setNoDelay(true);
      let buffer = Buffer.alloc(0);
      let sentAt = 0;
      const sendNext = () => {
        if (!running || performance.now() >= deadline) {
          socket.end();
          return;
        }
        const request = buildRequest(url.host, url.pathname, args.secret);
        const wait = interval > 0 ? Math.max(0, sentAt + interval - performance.now()) : 0;
        const go = () => {
          sentAt = performance.now();
          socket.write(request);
        };
        if (wait > 0) setTimeout(go, wait);
        else go();
      };
      socket.on('connect', sendNext);
      socket.on('data', (chunk) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buffer.subarray(0, end).toString('latin1');
          const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
          if (buffer.length < end + 4 + length) return;
          const status = Number(head.slice(9, 12));
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          latencies.push(performance.now() - sentAt);
          buffer = buffer.subarray(end + 4 + length);
          sendNext();
        }
      });
      socket.on('error', () => {
        errors++;
      });
      socket.on('close', () => done());
    });

  const timer = setTimeout(() => (running = false), args.durationMs + 5000);
  await Promise.all(Array.from({ length: args.connections }, (_, i) => runConnection(i)));
  clearTimeout(timer);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  const ok = [...statuses].filter(([s]) => s >= 200 && s < 300).reduce((n, [, c]) => n + c, 0);
  process.stdout.write(
    `${JSON.stringify({ requests: latencies.length, ok, statuses: Object.fromEntries(statuses), errors, seconds: elapsed, rps: ok / elapsed, p50: pct(50), p90: pct(90), p99: pct(99), p999: pct(99.9), max: latencies[latencies.length - 1] ?? NaN })}\n`,
  );
}

await main();
