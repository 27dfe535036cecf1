import type { ListenConfig } from '../../src/config/listen-config.js';
import { TEST_SECRET } from './signed-delivery.js';

/** A `listen` config for in-process tests: loopback, port 0, the test secret, silent, no console. */
export function testListenConfig(dbPath: string, overrides: Partial<ListenConfig> = {}): ListenConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    path: '/webhooks',
    secrets: [TEST_SECRET],
    toleranceSeconds: 300,
    dbPath,
    skipVerify: false,
    bodyLimitBytes: 1 << 20,
    logFormat: 'silent',
    devSecret: null,
    ...overrides,
  };
}
