/**
 * Carries out fault answers on the connection itself (issue 4, spec 6.4's failure classes as a
 * sender sees them): a chosen status with headers in order, a TCP reset, a clean close with no
 * response, a hang that holds the socket until the client gives up, a delay. Every answer but
 * `delay` takes the response over from fastify (`reply.hijack()`).
 *
 * Nothing here polls or spins: a hang is a socket left alone, with a timer as the cap, so a
 * thousand hung senders cost a thousand idle sockets and no CPU.
 */
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';

/** Longest a hang holds a socket when the client never gives up (a sender's limit is 10 s). */
export const DEFAULT_HANG_CAP_MS = 120_000;

export interface FaultSockets {
  /** Sends `status`, the headers in order, then `body` with its content-length. */
  respond(reply: FastifyReply, status: number, headers: ReadonlyArray<readonly [string, string]>, body: string): void;
  /** Destroys the connection with a TCP RST: the client sees ECONNRESET. */
  reset(reply: FastifyReply): void;
  /** Ends the connection cleanly (FIN) without a response. */
  close(reply: FastifyReply): void;
  /**
   * Never answers (after writing `statusLine` raw, when given): holds the connection until the
   * client gives up, the cap passes, or the receiver shuts down.
   */
  hang(reply: FastifyReply, statusLine: string | null): void;
  /** Resolves with the moment the request's connection ended (at once when it is gone already). */
  ended(reply: FastifyReply): Promise<number>;
  /** Waits `ms`; resolves false when the client left first (true also on shutdown: handle it now). */
  delay(reply: FastifyReply, ms: number): Promise<boolean>;
  /** Ends every hang and wakes every delay, so that closing the receiver does not wait on them. */
  shutdown(): void;
  /** Hung connections held right now. */
  hanging(): number;
}

export interface FaultSocketsOptions {
  clock: () => number;
  hangCapMs?: number;
}

/** Statuses that carry a content-length (1xx, 204 and 304 never have a body). */
const framed = (status: number): boolean => status >= 200 && status !== 204 && status !== 304;

export function createFaultSockets(options: FaultSocketsOptions): FaultSockets {
  const { clock } = options;
  const capMs = options.hangCapMs ?? DEFAULT_HANG_CAP_MS;
  const hung = new Set<Socket>();
  const waking = new Set<() => void>();

  /** The connection, taken over from fastify; null when it is gone already. */
  const takeOver = (reply: FastifyReply): Socket | null => {
    reply.hijack();
    const socket = reply.raw.socket;
    return socket && !socket.destroyed ? socket : null;
  };

  return {
    respond(reply, status, headers, body) {
      reply.hijack();
      const res = reply.raw;
      const bytes = Buffer.from(body, 'utf8');
      const flat: string[] = [];
      for (const [name, value] of headers) flat.push(name, value);
      if (framed(status)) flat.push('content-length', String(bytes.length));
      try {
        res.writeHead(status, flat);
        res.end(framed(status) ? bytes : undefined);
      } catch {
        // Node refused a header the rule checks let through: no half-written answer.
        res.destroy();
      }
    },
    reset(reply) {
      takeOver(reply)?.resetAndDestroy();
    },
    close(reply) {
      const socket = takeOver(reply);
      socket?.end(() => socket.destroy());
    },
    hang(reply, statusLine) {
      const socket = takeOver(reply);
      if (socket === null) return;
      hung.add(socket);
      const cap = setTimeout(() => socket.destroy(), capMs);
      socket.once('close', () => {
        clearTimeout(cap);
        hung.delete(socket);
      });
      if (statusLine !== null) socket.write(statusLine);
    },
    ended(reply) {
      const socket = reply.raw.socket;
      if (!socket || socket.destroyed) return Promise.resolve(clock());
      return new Promise<number>((resolve) => socket.once('close', () => resolve(clock())));
    },
    delay(reply, ms) {
      const res = reply.raw;
      if (res.destroyed || res.socket?.destroyed) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const done = (elapsed: boolean): void => {
          clearTimeout(timer);
          res.off('close', gone);
          waking.delete(wake);
          resolve(elapsed);
        };
        const gone = (): void => done(false);
        const wake = (): void => done(true);
        const timer = setTimeout(wake, ms);
        res.on('close', gone);
        waking.add(wake);
      });
    },
    shutdown() {
      for (const socket of [...hung]) socket.destroy();
      for (const wake of [...waking]) wake();
    },
    hanging: () => hung.size,
  };
}
