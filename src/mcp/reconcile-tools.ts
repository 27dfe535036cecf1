/**
 * `reconcile`: what the service sent against what the store holds, as `hookrelay reconcile` without
 * `--replay` (service/reconcile.ts). The API's address and key come from HOOKRELAY_API_URL and
 * HOOKRELAY_API_KEY only, never from a tool's input, and the key never leaves in an answer.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { dataDirOf } from '../config/data-dir.js';
import { resolveServiceSettings } from '../config/service-settings.js';
import { createApiClient } from '../service/api-client.js';
import { reconcile } from '../service/reconcile.js';
import { ServiceError } from '../service/service-error.js';
import { createWebhooksApi } from '../service/webhooks-api.js';
import { answer, guarded, ToolFailure } from './answer.js';
import type { McpContext } from './context.js';
import { escapedStrings, UNTRUSTED_NOTE } from './untrusted.js';

export function registerReconcileTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'reconcile',
    {
      title: 'Reconcile the service against the store',
      description: `Runs \`hookrelay reconcile\` without --replay: reads the service's deliveries of a webhook (paced to the API's read budget, spec 8, so a large webhook takes minutes) and reports those the service attempted that the store never accepted (with why), those stored here the service does not know as delivered, those still in flight, and attempts that never arrived. Needs HOOKRELAY_API_URL and HOOKRELAY_API_KEY in the server's environment. Resumes an unfinished run from the cursor it keeps in the data folder. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        webhook: z.string().min(1).max(256).describe('the webhook id (hookrelay webhooks list)'),
        since: z.string().regex(/^\d{4}-\d{2}-\d{2}/, 'an ISO date or date-time such as 2026-06-01 or 2026-06-01T12:00:00Z').max(64).optional().describe('only deliveries created at or after this ISO date or date-time'),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      guarded(ctx.redact, async () => {
        let since: { text: string; ms: number } | null = null;
        if (input.since !== undefined) {
          const ms = Date.parse(input.since);
          if (!Number.isFinite(ms)) throw new ToolFailure(`since must be an ISO date or date-time such as 2026-06-01 or 2026-06-01T12:00:00Z (got ${JSON.stringify(input.since)})`);
          since = { text: input.since, ms };
        }
        const service = resolveServiceSettings({}, ctx.env);
        if (!service.ok) throw new ToolFailure(`cannot reach the service: ${service.problems.join('; ')} (in the environment hookrelay mcp was started with)`);
        const client = createApiClient({ baseUrl: service.settings.apiUrl, apiKey: service.settings.apiKey, proxy: service.settings.proxy });
        try {
          const report = await reconcile({
            api: createWebhooksApi(client),
            store: ctx.store,
            apiUrl: service.settings.apiUrl,
            webhookId: input.webhook,
            since,
            dataDir: dataDirOf(ctx.dbPath),
            replay: false,
            confirmTimeoutMs: 0,
            waitMs: 0,
            now: ctx.now,
            sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          });
          return answer(ctx.redact, { store: ctx.storeName, ...escapedStrings(report) });
        } catch (err) {
          if (err instanceof ServiceError) throw new ToolFailure(`the service: ${client.scrub(err.message)}`);
          throw new Error(client.scrub((err as Error).message));
        } finally {
          await client.close();
        }
      }),
  );
}
