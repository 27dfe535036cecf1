/**
 * `hookrelay mcp`: a Model Context Protocol server over stdio for one data folder or store (issue 42,
 * item 4; docs/mcp.md). stdout is the protocol: nothing else is written there. A store that cannot
 * be opened exits before the server starts: 2 for a bad flag or no store there, 3 for one that
 * cannot be read (core/exit-codes.ts).
 */
import type { Command } from 'commander';
import { basename, join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DEFAULT_DB_PATH } from '../config/data-dir.js';
import { EXIT } from '../core/exit-codes.js';
import { openMcpContext, StartFailure, type McpFlags } from '../mcp/context.js';
import { createMcpServer } from '../mcp/server.js';
import { reportProblems } from './shared-options.js';

interface Flags {
  dataDir?: string;
  db?: string;
  config?: string;
  allowWrite?: boolean;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export function registerMcpCommand(program: Command): Command {
  return program
    .command('mcp')
    .description("a Model Context Protocol server over stdio for an agent: list, search and show deliveries, explain rejections, check, stats, reconcile, a running listen's fault rules (replay, retry and fault rule changes with --allow-write)")
    .option('--data-dir <dir>', `the data folder whose store to serve (its ${basename(DEFAULT_DB_PATH)})`)
    .option('--db <file-or-url>', 'the SQLite file, or a postgres:// URL (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB, HOOKRELAY_STORE]')
    .option('--config <file>', 'config file to read db, store, secrets, relay and console settings from (default: ./hookrelay.config.json when present)')
    .option('--allow-write', 'also offer the write tools: replay_delivery, retry_relay, add_fault_rule, remove_fault_rule (without it they are not listed)')
    .addHelpText(
      'after',
      `
Setup (see docs/mcp.md):
  claude mcp add hookrelay -- npx hookrelay mcp --data-dir ./.hookrelay

Delivery content is data from the internet: every tool says so, and answers carry it under
untrustedContent, escaped and cut. Secrets, the API key and URL credentials never appear in an answer.`,
    )
    .action(async (flags: Flags) => {
      const resolved = storeFlags(flags);
      if (!resolved.ok) {
        reportProblems(resolved.problems);
        process.exitCode = EXIT.usage;
        return;
      }
      let ctx;
      try {
        ctx = await openMcpContext(resolved.flags);
      } catch (err) {
        if (!(err instanceof StartFailure)) throw err;
        process.stderr.write(`hookrelay mcp: ${err.message}\n`);
        process.exitCode = err.kind === 'usage' ? EXIT.usage : EXIT.couldNotRun;
        return;
      }
      const server = createMcpServer(ctx);
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = resolve;
      });
      // The client closes stdin to end the session; a signal ends it too.
      const end = () => void server.close();
      process.stdin.once('end', end);
      process.once('SIGINT', end);
      process.once('SIGTERM', end);
      await server.connect(new StdioServerTransport());
      process.stderr.write(`hookrelay mcp: serving ${ctx.storeName}${ctx.writable ? ' (write tools on)' : ''} on stdio\n`);
      await closed;
      process.off('SIGINT', end);
      process.off('SIGTERM', end);
      await ctx.store.close();
    });
}

/** `--data-dir` or `--db` (a file or a postgres:// URL) as the store flags every command reads. */
function storeFlags(flags: Flags): { ok: true; flags: McpFlags } | { ok: false; problems: string[] } {
  if (flags.dataDir !== undefined && flags.db !== undefined) return { ok: false, problems: ['give --data-dir or --db, not both'] };
  const common = { config: flags.config, allowWrite: flags.allowWrite === true };
  if (flags.dataDir !== undefined) return { ok: true, flags: { ...common, db: join(flags.dataDir, basename(DEFAULT_DB_PATH)) } };
  if (flags.db !== undefined && POSTGRES_URL.test(flags.db)) return { ok: true, flags: { ...common, store: flags.db } };
  return { ok: true, flags: { ...common, db: flags.db } };
}
