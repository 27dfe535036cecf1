/**
 * `explain_rejection`: the receiver's verdict on a stored request, explained as `hookrelay verify`
 * explains a capture (ingest/explain-request.ts, the one core both call), judged at the moment the
 * receiver got it with the secrets, tolerance and body limit `listen` reads.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { dataDirOf } from '../config/data-dir.js';
import { folderSecrets } from '../config/folder-secrets.js';
import { CONFIG_FILE_KEYS, LISTEN_OPTIONS } from '../config/option-specs.js';
import { resolveOptions } from '../config/resolve-config.js';
import { MAX_ID_LENGTH } from '../core/limits.js';
import { capturedArrival } from '../ingest/captured-arrival.js';
import { explainedJson, explainRequest } from '../ingest/explain-request.js';
import type { AttemptRecord } from '../store/store.js';
import { answer, guarded, ToolFailure } from './answer.js';
import type { McpContext } from './context.js';
import { escapedStrings, UNTRUSTED_NOTE, untrustedText } from './untrusted.js';

const RECEIVER_KEYS = ['secret', 'tolerance', 'bodyLimit'];

/** The receiver's settings as `listen` (and `verify`) look them up; the development secret when none is set. */
function receiverSettings(ctx: McpContext): { secrets: string[]; toleranceSeconds: number; bodyLimitBytes: number } {
  const settings = resolveOptions(LISTEN_OPTIONS.filter((s) => RECEIVER_KEYS.includes(s.key)), { flags: {}, env: ctx.env, configFile: ctx.configFile, configFileRequired: ctx.configFile !== undefined }, CONFIG_FILE_KEYS);
  if (settings.problems.length > 0) throw new ToolFailure(`the receiver's settings cannot be read: ${settings.problems.join('; ')}`);
  const secrets = [...((settings.values.secret as string[] | undefined) ?? [])];
  // None set: the data folder's, as listen takes them (the kept secrets, then the development one).
  if (secrets.length === 0) secrets.push(...folderSecrets(dataDirOf(ctx.dbPath)));
  if (secrets.length === 0) throw new ToolFailure('no secret to judge with: set HOOKRELAY_SECRET or "secret" in hookrelay.config.json as listen has it, or run `hookrelay listen` once so it makes a development secret');
  return { secrets, toleranceSeconds: settings.values.tolerance as number, bodyLimitBytes: settings.values.bodyLimit as number };
}

/** The attempt asked for: by its seq, else the newest refused one of the id that kept its request. */
async function findAttempt(ctx: McpContext, id: string | undefined, attemptSeq: number | undefined): Promise<AttemptRecord | null> {
  if (attemptSeq !== undefined) {
    const [found] = await ctx.store.listAttempts({ before: attemptSeq + 1, limit: 1, withRequest: true, ...(id === undefined ? {} : { deliveryId: id }) });
    if (!found || found.seq !== attemptSeq) throw new ToolFailure(`no attempt #${attemptSeq}${id === undefined ? '' : ` of ${JSON.stringify(id)}`} in ${ctx.storeName}`);
    return found;
  }
  const attempts = await ctx.store.listAttempts({ deliveryId: id, outcomes: ['rejected'], limit: 1, withRequest: true });
  return attempts[0] ?? null;
}

export function registerExplainTools(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'explain_rejection',
    {
      title: 'Explain why the receiver refused a delivery',
      description: `The receiver's verdict on a stored request, as \`hookrelay verify\` gives it: the check that fails (size, signature, envelope), its status and code, and hints on the likely cause (a secret with a trailing newline, a re-serialised body, a clock skew). Judged at the moment the receiver got it, with the secrets, tolerance and body limit listen reads. Give a delivery id (its newest rejected attempt, else the stored delivery) or an attempt's seq (from list_deliveries with status rejected). ${UNTRUSTED_NOTE}`,
      inputSchema: {
        id: z.string().min(1).max(MAX_ID_LENGTH).optional().describe('delivery id (x-service-delivery)'),
        attemptSeq: z.number().int().min(1).optional().describe("an attempt's seq, as list_deliveries gives it (for a request without a delivery id)"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      guarded(ctx.redact, async () => {
        if (input.id === undefined && input.attemptSeq === undefined) throw new ToolFailure('give id (a delivery id) or attemptSeq (an attempt from list_deliveries)');
        const found = await findAttempt(ctx, input.id, input.attemptSeq);
        // An accepted attempt kept no request of its own: its stored delivery holds it.
        const attempt = found?.outcome === 'accepted' ? null : found;
        const id = found?.outcome === 'accepted' ? (found.deliveryId ?? undefined) : input.id;
        let request: { headers: ReadonlyArray<readonly [string, string]>; body: Buffer; receivedAt: number };
        let subject: Record<string, unknown>;
        if (attempt) {
          const recorded = { seq: attempt.seq, outcome: attempt.outcome, status: attempt.status, reason: attempt.reason, receivedAt: new Date(attempt.receivedAt).toISOString(), untrustedContent: { hints: (attempt.hints ?? []).map((h) => untrustedText(h)) } };
          const kept = attempt.request;
          if (!kept || kept.body === null || kept.body.length < attempt.bodyBytes) {
            const why = !kept ? 'nothing of its request was kept' : kept.body === null ? 'its body was never read (over the body limit, or a wrong Content-Length)' : `only the first ${kept.body.length} of its ${attempt.bodyBytes} body bytes were kept`;
            return answer(ctx.redact, { store: ctx.storeName, attempt: recorded, judged: null, note: `cannot be judged again: ${why}; the receiver's recorded answer and hints are above` });
          }
          request = { headers: kept.headers, body: Buffer.from(kept.body), receivedAt: attempt.receivedAt };
          subject = { attempt: recorded };
        } else {
          const delivery = id === undefined ? undefined : await ctx.store.getDelivery(id);
          if (!delivery) throw new ToolFailure(`no rejected attempt and no stored delivery with id ${JSON.stringify(id ?? null)} in ${ctx.storeName} (list_deliveries with status rejected lists refused attempts)`);
          request = { headers: delivery.headers, body: Buffer.from(delivery.rawBody), receivedAt: delivery.receivedAt };
          subject = { delivery: { seq: delivery.seq, receivedAt: new Date(delivery.receivedAt).toISOString(), note: 'a stored delivery: the receiver accepted it; judged again with the settings of now' } };
        }
        const settings = receiverSettings(ctx);
        const arrival = capturedArrival({ headers: request.headers, body: request.body, receivedAt: request.receivedAt, bodyLimitBytes: settings.bodyLimitBytes });
        const report = explainRequest(arrival, settings, 'stored');
        return answer(ctx.redact, {
          store: ctx.storeName,
          ...subject,
          judgedAt: new Date(request.receivedAt).toISOString(),
          settings: { secrets: settings.secrets.length, toleranceSeconds: settings.toleranceSeconds, bodyLimitBytes: settings.bodyLimitBytes },
          // hookrelay's words, which quote what the sender sent (a header value, the body's id): escaped as untrusted text.
          ...escapedStrings(explainedJson(report)),
        });
      }),
  );
}
