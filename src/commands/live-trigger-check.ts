/**
 * Spec 6.2: clients read the catalogue from `GET /webhooks/triggers` rather than hard-coding it.
 * With an API address (--api-url or HOOKRELAY_API_URL), `send` checks its trigger there; without
 * one it keeps the built-in catalogue, which is only a fallback.
 */
import type { Command } from 'commander';
import { resolveApiUrlOnly, type ServiceFlags } from '../config/service-settings.js';
import type { CommandOutput } from '../sender/cli-output.js';
import { addServiceOptions, openSession, runWithSession } from './service-options.js';

export function addLiveCatalogueOptions(command: Command): Command {
  return addServiceOptions(command);
}

/** True when `send` may go on: no API address, or the live catalogue has the trigger. Else it has reported why and set the exit code. */
export async function triggerIsLive(command: Command, flags: ServiceFlags, trigger: string, output: CommandOutput): Promise<boolean> {
  if (resolveApiUrlOnly(flags) === undefined) return true;
  const session = openSession(command, flags);
  if (!session) return false;
  let live = false;
  await runWithSession({ ...session, output }, false, async () => {
    const { value: catalogue } = await session.api.triggers();
    const entry = catalogue.find((e) => e.trigger === trigger);
    if (!entry) {
      output.err(`hookrelay: the live catalogue at ${session.apiUrl} has no trigger "${trigger}" (it has: ${catalogue.map((e) => e.trigger).join(', ') || 'none'})`);
      process.exitCode = 2;
      return;
    }
    if (entry.entitled === false) output.err(`warning: "${trigger}" is a ${entry.tier || 'premium'} trigger this plan is not entitled to: the service would not send it`);
    live = true;
  });
  return live;
}
