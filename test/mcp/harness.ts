/** An MCP client connected in memory to a server on a temporary store: what the tool tests share. */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openMcpContext } from '../../src/mcp/context.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { DeliveryStore } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';
import type { RelayTargets } from '../../src/core/routes.js';

export interface Harness {
  client: Client;
  dir: string;
  db: string;
  /** The server's store, for a test that breaks it under the server. */
  store: { close(): Promise<void> };
  /** Every answer's text, for tests that search all of them. */
  answers: string[];
  call(name: string, args?: Record<string, unknown>): Promise<{ result: CallToolResult; text: string; json: any }>;
  close(): Promise<void>;
}

/** A SQLite store in a temporary folder, seeded by `seed` through the store's own API, then closed. */
export async function seededStore(seed: (store: DeliveryStore) => Promise<void>, options: { outbox?: boolean | RelayTargets } = {}): Promise<{ dir: string; db: string; remove: () => void }> {
  const { dir, remove } = tempDir('hookrelay-mcp-');
  const db = join(dir, 'hookrelay.db');
  const store = await createSqliteStore(db, { outbox: options.outbox ?? false });
  try {
    await seed(store);
  } finally {
    await store.close();
  }
  return { dir, db, remove };
}

/**
 * A client and a server on `db` (a SQLite path, or a postgres:// URL), with `env` as the server's
 * environment (no HOOKRELAY_* of the test's own).
 */
export async function connect(db: string, options: { env?: NodeJS.ProcessEnv; allowWrite?: boolean } = {}): Promise<Harness> {
  const env = { ...options.env };
  const where = /^postgres(ql)?:\/\//.test(db) ? { store: db } : { db };
  const ctx = await openMcpContext({ ...where, allowWrite: options.allowWrite }, env);
  const server = createMcpServer(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'hookrelay-test', version: '1.0.0' });
  await client.connect(clientSide);
  const answers: string[] = [];
  return {
    client,
    dir: join(db, '..'),
    db,
    store: ctx.store,
    answers,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      answers.push(text);
      let json: unknown = null;
      if (!result.isError) json = JSON.parse(text);
      return { result, text, json };
    },
    async close() {
      await client.close();
      await server.close();
      await ctx.store.close().catch(() => undefined);
    },
  };
}
