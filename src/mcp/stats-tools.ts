/** `store_stats`: what `hookrelay db stats` and `hookrelay status` report of the store. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readStatus } from '../commands/status.js';
import { dataDirOf } from '../config/data-dir.js';
import { answer, guarded } from './answer.js';
import type { McpContext } from './context.js';
import { escapedStrings, UNTRUSTED_NOTE } from './untrusted.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function registerStatsTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'store_stats',
    {
      title: 'Store statistics and lag',
      description: `What \`hookrelay db stats\` and \`hookrelay status\` report: deliveries stored (oldest, newest), attempts by outcome, relay jobs by state; relay jobs owed per target with the oldest, bridge subscribers behind, and bulk replay jobs not finished. ${UNTRUSTED_NOTE}`,
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(ctx.redact, async () => {
        const stats = await ctx.store.stats();
        const status = await readStatus(ctx.store, ctx.storeName, ctx.now(), ctx.location.kind === 'sqlite' ? dataDirOf(ctx.dbPath) : null);
        return answer(ctx.redact, {
          store: ctx.storeName,
          stats: { ...stats, oldestReceivedAt: iso(stats.oldestReceivedAt), newestReceivedAt: iso(stats.newestReceivedAt) },
          // Targets are shown without credentials (as stored); subscriber names and replay selections are escaped.
          status: escapedStrings(status),
        });
      }),
  );
}
