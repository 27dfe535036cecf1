/** An emulator in this process on port 0 in a temp folder, driven through inject(), with its engine events. */
import { buildEmulator, type EmulatorHandle, type EmulatorOverrides } from '../../src/app/build-emulator.js';
import type { EmulatorConfig } from '../../src/config/emulate-config.js';
import type { EngineEvent } from '../../src/emulator/delivery-engine.js';
import { tempDir } from '../helpers/temp-dir.js';
import { join } from 'node:path';

export interface Harness {
  app: EmulatorHandle;
  dir: string;
  dbPath: string;
  keys: { aFull: string; aRead: string; bFull: string };
  events: EngineEvent[];
  api(method: string, path: string, options?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** Resolves once an engine event satisfies `test` (already seen ones count). */
  waitFor(test: (e: EngineEvent) => boolean): Promise<EngineEvent>;
  close(): Promise<void>;
}

export async function startEmulator(config: Partial<EmulatorConfig> = {}, overrides: EmulatorOverrides = {}, existingDir?: string): Promise<Harness> {
  const temp = existingDir === undefined ? tempDir('hookrelay-emulate-') : null;
  const dir = existingDir ?? temp!.dir;
  const dbPath = join(dir, 'emulator.db');
  const events: EngineEvent[] = [];
  const waiters: Array<{ test: (e: EngineEvent) => boolean; resolve: (e: EngineEvent) => void }> = [];
  const app = await buildEmulator(
    { port: 0, host: '127.0.0.1', dbPath, timeScale: 0.001, ssrf: 'loopback', plan: 'core', webhookCap: 10, rateLimitScale: null, seed: 7, extraKeys: [], ...config },
    {
      ...overrides,
      onEvent: (e) => {
        events.push(e);
        for (const w of [...waiters]) if (w.test(e)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(e));
      },
    },
  );
  const file = app.keys;
  const keyOf = (name: string) => file.keys.find((k) => k.name === name)!.key;
  return {
    app,
    dir,
    dbPath,
    keys: { aFull: keyOf('a-full'), aRead: keyOf('a-read'), bFull: keyOf('b-full') },
    events,
    async api(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? keyOf('a-full') : options.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let payload: string | undefined = options.raw;
      if (options.body !== undefined) {
        payload = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await app.server.inject({ method: method as 'GET', url: path, headers, ...(payload === undefined ? {} : { payload }) });
      let body: unknown = res.body;
      try {
        body = JSON.parse(res.body);
      } catch {
        /* left as text */
      }
      return { status: res.statusCode, body, headers: res.headers };
    },
    waitFor(test) {
      const seen = events.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ test, resolve }));
    },
    async close() {
      await app.close();
      temp?.remove();
    },
  };
}

export const webhookBody = (endpoint: string, extra: Record<string, unknown> = {}) => ({ name: 'test hook', triggers: ['control.drift_detected'], endpoint, ...extra });
