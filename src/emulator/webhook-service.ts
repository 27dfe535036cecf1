/** The webhook rows of spec 4.3: create, read, PATCH, delete, with the webhook state table of spec 3. */
import { randomBytes, randomUUID } from 'node:crypto';
import { CURRENT_API_VERSION } from '../core/envelope.js';
import { judgeTriggers } from '../core/emulator/trigger-catalogue.js';
import { validateCreateBody, validatePatchBody, type CustomHeaderInput } from '../core/emulator/webhook-body.js';
import { isoTime } from '../core/iso-time.js';
import { secretHint } from '../core/secret-hint.js';
import { ApiError, forbidden, notFound, validationError } from './api-error.js';
import { closeWaiting } from './close-waiting.js';
import { sealContext, type EmulatorContext } from './emulator-context.js';
import { endpointProblem } from './endpoint-rule.js';
import type { SealedHeader, StoredWebhook } from './webhook-store.js';
import { webhookView } from './webhook-view.js';

export type WebhookView = ReturnType<typeof webhookView>;

export async function createWebhook(ctx: EmulatorContext, organizationId: string, body: unknown): Promise<{ webhook: WebhookView; signingSecret?: string }> {
  const checked = validateCreateBody(body);
  if (!checked.ok) throw validationError(checked.problems);
  const input = checked.value;
  checkPlan(ctx, input.triggers);
  await checkEndpoint(ctx, input.endpoint);
  const id = randomUUID();
  const secret = input.signingEnabled ? `whsec_${randomBytes(24).toString('base64url')}` : null;
  const now = isoTime(ctx.now());
  const created = ctx.db.transaction(() => {
    // Spec 4.3: over the plan's webhook-count cap, 409 (the spec names no code).
    if (ctx.webhooks.count(organizationId) >= ctx.webhookCap) {
      throw new ApiError(409, 'WEBHOOK_LIMIT_REACHED', `the organization has ${ctx.webhookCap} webhooks, the plan's cap (--webhook-cap); delete one first`);
    }
    return ctx.webhooks.insert({
      id,
      organizationId,
      name: input.name,
      triggers: input.triggers,
      endpoint: input.endpoint,
      status: 'active',
      apiVersion: CURRENT_API_VERSION,
      customHeaders: sealHeaders(ctx, id, input.customHeaders),
      signingEnabled: input.signingEnabled,
      secretSealed: secret === null ? null : ctx.box.seal(secret, sealContext.secret(id)),
      secretHint: secret === null ? null : secretHint(secret),
      retryPolicy: input.retryPolicy,
      failureHandling: input.failureHandling,
      consecutiveFailures: 0,
      lastSuccessAt: null,
      lastFailureAt: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    });
  })();
  // Spec 2.11: the secret is returned exactly once, here.
  return { webhook: webhookView(created), ...(secret === null ? {} : { signingSecret: secret }) };
}

export function getWebhook(ctx: EmulatorContext, organizationId: string, id: string): StoredWebhook {
  const webhook = ctx.webhooks.get(id, organizationId);
  // Spec 1.1: another organization's webhook is absent, never forbidden.
  if (webhook === null) throw notFound('no webhook with this id');
  return webhook;
}

export async function updateWebhook(ctx: EmulatorContext, organizationId: string, id: string, body: unknown): Promise<WebhookView> {
  const before = getWebhook(ctx, organizationId, id);
  const checked = validatePatchBody(body, before);
  if (!checked.ok) throw validationError(checked.problems);
  const patch = checked.value;
  if (patch.triggers !== undefined) checkPlan(ctx, patch.triggers);
  if (patch.endpoint !== undefined) await checkEndpoint(ctx, patch.endpoint);
  const updated = ctx.db.transaction(() => {
    // Read again: the engine may have moved the webhook while the endpoint was resolved.
    const current = getWebhook(ctx, organizationId, id);
    const next: StoredWebhook = {
      ...current,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.triggers !== undefined ? { triggers: patch.triggers } : {}),
      ...(patch.endpoint !== undefined ? { endpoint: patch.endpoint } : {}),
      ...(patch.retryPolicy !== undefined ? { retryPolicy: patch.retryPolicy } : {}),
      ...(patch.failureHandling !== undefined ? { failureHandling: patch.failureHandling } : {}),
      ...(patch.customHeaders !== undefined ? { customHeaders: sealHeaders(ctx, id, patch.customHeaders) } : {}),
    };
    if (patch.status === 'disabled' && current.status !== 'disabled') {
      Object.assign(next, { status: 'disabled', disabledReason: 'disabled through the API' });
      closeWaiting(ctx, id);
    } else if (patch.status === 'active' && current.status !== 'active') {
      // Spec 3: re-enabling clears the auto-disable bookkeeping.
      Object.assign(next, { status: 'active', disabledReason: null, consecutiveFailures: 0 });
    }
    if (JSON.stringify(next) === JSON.stringify(current)) return current;
    next.updatedAt = isoTime(ctx.now());
    ctx.webhooks.update(next);
    return next;
  })();
  // A changed endpoint or policy applies to waiting deliveries from their next attempt.
  ctx.wake();
  return webhookView(updated);
}

export function deleteWebhook(ctx: EmulatorContext, organizationId: string, id: string): void {
  getWebhook(ctx, organizationId, id);
  ctx.db.transaction(() => {
    ctx.webhooks.delete(id);
    ctx.deliveries.deleteOfWebhook(id);
  })();
}

/** Spec 4.3: unknown names were refused (422) by the body check; names off the plan get 403. */
function checkPlan(ctx: EmulatorContext, triggers: readonly string[]): void {
  const { notEntitled } = judgeTriggers(triggers, ctx.plan);
  if (notEntitled.length > 0) {
    throw forbidden(`the plan (${ctx.plan}) is not entitled to ${notEntitled.join(', ')}; nothing was changed`, { field: 'triggers', notEntitled });
  }
}

async function checkEndpoint(ctx: EmulatorContext, endpoint: string): Promise<void> {
  const problem = await endpointProblem(endpoint, ctx.ssrf, ctx.lookup);
  if (problem !== null) throw validationError([problem]);
}

function sealHeaders(ctx: EmulatorContext, webhookId: string, headers: readonly CustomHeaderInput[]): SealedHeader[] {
  return headers.map((h) => ({ name: h.name, sealed: ctx.box.seal(h.value, sealContext.header(webhookId, h.name)), hint: secretHint(h.value) }));
}
