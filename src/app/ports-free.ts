/**
 * Before a start creates anything (data folder, database, lock), the ports it needs are tried: a
 * busy port, or a host that is not this machine's, then fails the start with nothing left behind.
 * A port taken in the moment between this check and the real bind still fails the start, later,
 * but nothing is ever deleted to undo it.
 */
import { createServer } from 'node:net';

export interface WantedPort {
  port: number;
  host: string;
  /** Said when it is busy, e.g. "port 4000 on 127.0.0.1 is already in use: …". */
  busy: string;
  code: string;
  /** The flag that named the host (`--host`, `--console-host`…), for a host that cannot be bound. */
  hostFlag: string;
}

/** Why a host cannot be listened on, by the bind's error code; null for other errors. */
function badHost(code: string | undefined): string | null {
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_FAIL') return 'not an address, nor a name that resolves';
  if (code === 'EAI_AGAIN') return 'the name could not be looked up now (no DNS?)';
  if (code === 'EADDRNOTAVAIL') return 'not an address of this machine';
  return null;
}

export async function assertPortsFree(wanted: readonly WantedPort[]): Promise<void> {
  // Port 0 is never busy, but its host is still tried: a host that cannot be bound is named here.
  for (const want of wanted) {
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', (err: NodeJS.ErrnoException) => {
        const why = badHost(err.code);
        if (err.code === 'EADDRINUSE') reject(Object.assign(new Error(want.busy), { code: want.code }));
        // The bind's own code is kept: a library caller (hookrelay/testing) may test it.
        else if (why) reject(Object.assign(new Error(`cannot listen on ${want.host} (${want.hostFlag}): ${why} (${err.code})`), { code: err.code }));
        else resolve(); // EACCES and the like: the real bind reports them in its own words
      });
      probe.listen(want.port, want.host, () => probe.close(() => resolve()));
    });
  }
}
