/**
 * Control API: the relay's targets with their pace (`--pace`), and pause and resume. A target is
 * named by its place in the list: its URL may hold credentials, which the console never shows.
 */
import type { FastifyInstance } from 'fastify';
import { notFound, notImplemented, success } from './api-envelope.js';
import type { ConsoleContext } from './console-context.js';
import type { RelayTargetsAdapter, RelayTargetView } from './console-options.js';
import { printable } from '../reporter/printable.js';
import { redactUrl } from './views.js';

const BLOCKED_KEYS_A_TARGET = 20;

export function registerTargetRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const adapter = (): RelayTargetsAdapter => {
    if (!ctx.options.relayTargets) throw notImplemented('this process has no relay: start it with --forward-to');
    return ctx.options.relayTargets;
  };
  const listed = async (): Promise<RelayTargetView[]> => {
    const source = adapter();
    const blocked = await source.blocked();
    return source.list().map((entry, i) => ({
      id: String(i + 1),
      ...entry,
      target: redactUrl(entry.target)!,
      blockedKeys: blocked
        .filter((b) => b.target === entry.target)
        .slice(0, BLOCKED_KEYS_A_TARGET)
        // A key is what a delivery holds (a header's value, with order=header:…): shown as any received text is, its known secrets hidden.
        .map(({ target: _target, ...b }) => ({ ...b, key: printable(ctx.redact(b.key), 300), deliveryId: printable(b.deliveryId, 300), lastError: b.lastError === null ? null : printable(ctx.redact(b.lastError), 500) })),
    }));
  };

  app.get('/api/targets', async () => success(await listed(), ctx.now()));

  for (const [action, paused] of [['pause', true], ['resume', false]] as const) {
    app.post<{ Params: { id: string } }>(`/api/targets/:id/${action}`, async (request) => {
      const targets = adapter().list();
      const index = /^[1-9]\d{0,3}$/.test(request.params.id) ? Number(request.params.id) - 1 : -1;
      const entry = targets[index];
      if (!entry) throw notFound(`no target ${JSON.stringify(request.params.id.slice(0, 20))}: GET /api/targets lists them, numbered from 1`);
      adapter().setPaused(entry.target, paused);
      return success((await listed())[index], ctx.now());
    });
  }
}
