/** A receiver whose PostgreSQL server goes away answers 503 (never 2xx) until it is back, then accepts again. */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListenProcess } from '../helpers/listen-process.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../setup/postgres-global-setup.js';
import { post, startInstance, stopInstance } from './fleet.js';

let own: ThrowawayPostgres | null = null;
let listen: ListenProcess | null = null;
afterAll(async () => {
  if (listen) await stopInstance(listen);
  own?.stop();
});

describe('a listen process losing its PostgreSQL server', () => {
  it('answers 503 while the server is down and 200 once it is back, without a restart', async () => {
    // Its own server: stopping the shared one would break the other test files running beside this one.
    own = startThrowawayPostgres();
    listen = await startInstance(own.url, 'solo');
    const before = randomUUID();
    expect(await post(listen.url, before, 1)).toBe(200);

    own.crash();
    const during = randomUUID();
    const answers = await Promise.all([post(listen.url, during, 1), post(listen.url, during, 2), post(listen.url, before, 2)]);
    expect(answers).toEqual([503, 503, 503]);

    own.restart();
    expect(await post(listen.url, during, 3)).toBe(200);
    expect(await post(listen.url, before, 3)).toBe(200);
    expect(listen.child.exitCode).toBeNull();
  }, 60_000);
});
