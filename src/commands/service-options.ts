/**
 * What the commands that talk to the service share (issue 17): the --api-url / --api-key flags,
 * the client built from them, and one way to report the service's failures (its error envelope
 * verbatim; exit 3 when the command could not run, 2 when the service refused what was given) and
 * refused input (exit 2), by the one table of core/exit-codes.ts. The key is never printed: every message passes
 * through the client's scrubber.
 */
import type { Command } from 'commander';
import { resolveDataDir, resolveServiceSettings, type ServiceFlags } from '../config/service-settings.js';
import { PROCESS_LIST_NOTE } from '../config/secret-flags.js';
import { PROXY_OPTION } from '../config/option-specs.js';
import { createApiClient, type ApiClient, type WaitNotice } from '../service/api-client.js';
import { ServiceError } from '../service/service-error.js';
import { createWebhooksApi, type WebhooksApi } from '../service/webhooks-api.js';
import { SecretSetError } from '../service/secret-set.js';
import { EXIT_USAGE, outputOf, type CommandOutput } from '../sender/cli-output.js';
import { EXIT } from '../core/exit-codes.js';

/**
 * The exit code of a failure to talk to the service: it could not run (network, authentication,
 * the service failing or rate limiting, an answer that is not the API's), or the service refused a
 * value as given (a wrong id, a field it does not take): usage.
 */
export function exitCodeOf(err: ServiceError | SecretSetError): number {
  if (err instanceof ServiceError && err.code === 'API_ERROR' && err.status !== null && err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 403 && err.status !== 429) return EXIT.usage;
  return EXIT.couldNotRun;
}

export function addServiceOptions(command: Command): Command {
  return command
    .option('--api-url <url>', 'the API\'s base URL including /v1 [env HOOKRELAY_API_URL]')
    .option('--api-key <key>', `API key (${PROCESS_LIST_NOTE}) [env HOOKRELAY_API_KEY]`)
    .option('--proxy <url>', `${PROXY_OPTION.description} [env ${PROXY_OPTION.env}]`);
}

export function addDataOptions(command: Command): Command {
  return command
    .option('--db <file>', 'SQLite file whose folder is the data folder (default: .hookrelay/hookrelay.db) [env HOOKRELAY_DB]')
    .option('--config <file>', 'config file to read db from');
}

export interface ServiceSession {
  client: ApiClient;
  api: WebhooksApi;
  apiUrl: string;
  output: CommandOutput;
}

/** Builds the client from the flags, or reports every problem (exit 2) and returns null. */
export function openSession(command: Command, flags: ServiceFlags): ServiceSession | null {
  const output = outputOf(command);
  const checked = resolveServiceSettings(flags);
  if (!checked.ok) {
    reportUsageProblems(output, checked.problems);
    return null;
  }
  for (const warning of checked.settings.warnings) output.err(warning);
  const client = createApiClient({
    baseUrl: checked.settings.apiUrl,
    apiKey: checked.settings.apiKey,
    proxy: checked.settings.proxy,
    onWait: (notice) => output.err(waitLine(notice)),
  });
  return { client, api: createWebhooksApi(client), apiUrl: checked.settings.apiUrl, output };
}

export function waitLine(notice: WaitNotice): string {
  const seconds = (notice.ms / 1000).toFixed(notice.ms < 10_000 ? 1 : 0);
  if (notice.reason === 'rate_limit') return `… pacing: the ${notice.cause} is spent, waiting ${seconds} s (spec 8)`;
  if (notice.reason === 'retry_after') return `… rate limited (${notice.cause}): waiting ${seconds} s`;
  return `… ${notice.cause}: trying again in ${seconds} s`;
}

export function reportUsageProblems(output: CommandOutput, problems: readonly string[]): void {
  output.err(`hookrelay: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} with the settings:`);
  for (const p of problems) output.err(`  - ${p}`);
  process.exitCode = EXIT_USAGE;
}

/** The data folder of --db / HOOKRELAY_DB, or reports why not (exit 2) and returns null. */
export function dataDirOrReport(output: CommandOutput, flags: { db?: string; config?: string }): string | null {
  const dir = resolveDataDir(flags);
  if (!dir.ok) {
    reportUsageProblems(output, dir.problems);
    return null;
  }
  return dir.dataDir;
}

/**
 * Runs `work` with the session and closes the client; a ServiceError or a damaged secret set is
 * reported in one line (with --json, the service's error envelope as received, on stderr) and
 * exits by exitCodeOf. Anything else is a bug and is thrown, scrubbed.
 */
export async function runWithSession(session: ServiceSession, json: boolean, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (err instanceof ServiceError || err instanceof SecretSetError) {
      const message = session.client.scrub(err.message);
      if (json && err instanceof ServiceError && err.envelope) session.output.err(session.client.scrub(JSON.stringify(err.envelope.raw, null, 2)));
      session.output.err(`error: ${message}`);
      process.exitCode = exitCodeOf(err);
      return;
    }
    throw new Error(session.client.scrub((err as Error).message));
  } finally {
    await session.client.close();
  }
}
