/** A `listen` app built in-process on a temporary database, closed and removed by the caller's cleanups. */
import { join } from 'node:path';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import type { ListenConfig } from '../../src/config/listen-config.js';
import { testListenConfig } from './listen-config.js';
import { tempDir } from './temp-dir.js';

/** The console on an ephemeral port, open to 127.0.0.1, no token. */
export const TEST_CONSOLE: ListenConfig['console'] = { port: 0, host: '127.0.0.1', allowedHosts: [], token: null };

export async function startApp(cleanups: Array<() => unknown>, overrides: Partial<ListenConfig> = {}): Promise<AppHandle> {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const app = await buildApp(testListenConfig(join(dir, 'app.db'), overrides));
  cleanups.push(() => app.close());
  return app;
}
