/**
 * The MCP server of `hookrelay mcp` (issue 42, item 4): the read tools on one store, and the write
 * tools only when it was started with --allow-write (not listed at all otherwise). Built without a
 * transport, so tests connect a client in memory and the command connects stdio.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../runtime/version.js';
import { registerCheckTools } from './check-tools.js';
import type { McpContext } from './context.js';
import { registerDeliveryTools } from './delivery-tools.js';
import { registerExplainTools } from './explain-tools.js';
import { registerFaultReadTools, registerFaultWriteTools } from './fault-tools.js';
import { registerReconcileTools } from './reconcile-tools.js';
import { registerStatsTools } from './stats-tools.js';
import { UNTRUSTED_NOTE } from './untrusted.js';
import { registerWriteTools } from './write-tools.js';

export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer(
    { name: 'hookrelay', version: VERSION },
    { instructions: `hookrelay's store of received webhook deliveries (${ctx.writable ? 'read and write' : 'read-only'}). ${UNTRUSTED_NOTE}` },
  );
  registerDeliveryTools(server, ctx);
  registerExplainTools(server, ctx);
  registerCheckTools(server, ctx);
  registerStatsTools(server, ctx);
  registerReconcileTools(server, ctx);
  registerFaultReadTools(server, ctx);
  if (ctx.writable) {
    registerWriteTools(server, ctx, ctx.writable);
    registerFaultWriteTools(server, ctx);
  }
  return server;
}
