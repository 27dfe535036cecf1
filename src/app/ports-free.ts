/**
 * Before a start creates anything (data folder, database, lock), the fixed ports it needs are
 * tried: a busy port then fails the start with nothing left behind. Port 0 needs no check. A port
 * taken in the moment between this check and the real bind still fails the start, later, but
 * nothing is ever deleted to undo it.
 */
import { createServer } from 'node:net';

export interface WantedPort {
  port: number;
  host: string;
  /** Said when it is busy, e.g. "port 4000 on 127.0.0.1 is already in use: …". */
  busy: string;
  code: string;
}

export async function assertPortsFree(wanted: readonly WantedPort[]): Promise<void> {
  for (const want of wanted) {
    if (want.port === 0) continue;
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') reject(Object.assign(new Error(want.busy), { code: want.code }));
        else resolve(); // EACCES and the like: the real bind reports them in its own words
      });
      probe.listen(want.port, want.host, () => probe.close(() => resolve()));
    });
  }
}
