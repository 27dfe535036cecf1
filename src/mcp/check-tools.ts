/**
 * `check`: whether the sender retried as its policy says, judged as `hookrelay check` judges
 * (conformance/check-run.ts, the one core both call; settings through config/check-settings.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { resolveCheckSettings } from '../config/check-settings.js';
import { checkRun } from '../conformance/check-run.js';
import { MAX_ID_LENGTH } from '../core/limits.js';
import { answer, guarded, ToolFailure } from './answer.js';
import type { McpContext } from './context.js';
import { escapedStrings, UNTRUSTED_NOTE } from './untrusted.js';

/** Delivery verdicts an answer lists: the failing first, then the newest. */
const MAX_VERDICTS = 50;

export function registerCheckTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'check',
    {
      title: "Judge the sender's retries against its policy",
      description: `Runs \`hookrelay check\` on the store: judges the recorded attempts of each delivery against the sender's retry policy (spec 6.3, 6.4): a verdict per delivery with its failing rules, the webhook's suspension, and a summary. Lists at most ${MAX_VERDICTS} deliveries, the failing first. ${UNTRUSTED_NOTE} Ids, triggers and observed values in the verdict come from deliveries.`,
      inputSchema: {
        delivery: z.string().min(1).max(MAX_ID_LENGTH).optional().describe('judge only this delivery, in the context of the run'),
        since: z.string().min(1).max(64).optional().describe('only deliveries with an attempt at or after this: an ISO date-time or a time ago (10m, 2h, 1d)'),
        policy: z.string().min(1).max(4096).optional().describe("the sender's retryPolicy as JSON (spec 2.11); missing fields keep the defaults"),
        autoDisableAfter: z.number().int().min(1).max(100).optional().describe("the webhook's failureHandling.autoDisableAfter (default 15)"),
        timeScale: z.string().min(1).max(20).optional().describe('the sender ran with this --time-scale'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      guarded(ctx.redact, async () => {
        const checked = resolveCheckSettings(
          {
            delivery: input.delivery,
            since: input.since,
            policy: input.policy,
            autoDisableAfter: input.autoDisableAfter === undefined ? undefined : String(input.autoDisableAfter),
            timeScale: input.timeScale,
            config: ctx.configFile,
            ...(ctx.location.kind === 'postgres' ? { store: ctx.location.url } : { db: ctx.dbPath }),
          },
          { nowMs: ctx.now(), env: ctx.env },
        );
        // The problems name the CLI's flags (--since, --policy): the tool's inputs have the same names.
        if (!checked.ok) throw new ToolFailure(checked.problems.join('; '));
        const { settings } = checked;
        const { verdict, records } = await checkRun(ctx.store, { options: settings.options, since: settings.since, deliveryId: settings.deliveryId });
        if (verdict === null) throw new ToolFailure(`no recorded attempt${settings.since === null ? '' : ` since ${new Date(settings.since).toISOString()}`} carries delivery id ${JSON.stringify(settings.deliveryId)}`);
        const ordered = [...verdict.deliveries].sort((a, b) => (a.status === b.status ? 0 : a.status === 'fail' ? -1 : 1));
        return answer(ctx.redact, {
          store: ctx.storeName,
          records: records.length,
          conforms: verdict.summary.failures === 0,
          summary: verdict.summary,
          suspension: escapedStrings(verdict.suspension),
          deliveries: escapedStrings(ordered.slice(0, MAX_VERDICTS)),
          ...(ordered.length > MAX_VERDICTS ? { note: `${ordered.length - MAX_VERDICTS} more deliveries judged; ask for one with delivery` } : {}),
        });
      }),
  );
}
