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
  store?: string;
  config?: string;
  allowWrite?: boolean;
}

export function registerMcpCommand(program: Command): Command {
  return program
    .command('mcp')
    .description("a Model Context Protocol server over stdio for an agent: list, search and show deliveries, explain rejections, check, stats, reconcile, a running listen's fault rules (replay, retry and fault rule changes with --allow-write)")
    .option('--data-dir <dir>', `the data folder whose store to serve (its ${basename(DEFAULT_DB_PATH)})`)
    .option('--db <file>', 'the SQLite file (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--store <url>', 'a postgres:// URL instead of the SQLite file [env HOOKRELAY_STORE]')
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

/**
 * `--data-dir` (its SQLite file), `--db` and `--store` as the store flags every command reads. A
 * postgres:// URL given as `--db` is refused where every command refuses it (`dbUrlProblem`), naming
 * `--store` and never echoing the URL.
 */
function storeFlags(flags: Flags): { ok: true; flags: McpFlags } | { ok: false; problems: string[] } {
  if (flags.dataDir !== undefined && flags.db !== undefined) return { ok: false, problems: ['give --data-dir or --db, not both'] };
  const db = flags.dataDir !== undefined ? join(flags.dataDir, basename(DEFAULT_DB_PATH)) : flags.db;
  return { ok: true, flags: { db, store: flags.store, config: flags.config, allowWrite: flags.allowWrite === true } };
}
