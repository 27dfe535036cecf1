/** Control API: the fault rules (issue 4's registry, behind the FaultsAdapter). */
import type { FastifyInstance } from 'fastify';
import { ConsoleApiError, badRequest, notFound, notImplemented, success } from './api-envelope.js';
import type { ConsoleContext } from './console-context.js';
import type { FaultChange, FaultsAdapter } from './console-options.js';

/**
 * The rule a request body carries: a JSON string or `{"line": "..."}` is the one-line form;
 * any other object is the JSON form.
 */
export function ruleFromBody(body: unknown): unknown {
  if (typeof body === 'string') return body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body must be a rule: a JSON rule object, or {"line": "<one-line rule>"}');
  }
  const keys = Object.keys(body);
  const line = (body as { line?: unknown }).line;
  if (keys.length === 1 && keys[0] === 'line') {
    if (typeof line !== 'string') throw badRequest('"line" must be a string');
    return line;
  }
  return body;
}

function refused(change: Extract<FaultChange, { ok: false }>): ConsoleApiError {
  if (change.notFound) return notFound(change.message || 'no fault rule with this id');
  return new ConsoleApiError(
    422,
    'VALIDATION_ERROR',
    change.message,
    typeof change.column === 'number' ? { column: change.column } : undefined,
  );
}

export function registerFaultRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const faults = (): FaultsAdapter => {
    if (!ctx.options.faults) throw notImplemented('fault rules are not available in this process');
    return ctx.options.faults;
  };

  app.get('/api/faults', async () => success(await faults().list(), ctx.now()));

  app.post('/api/faults', async (request, reply) => {
    const adapter = faults();
    const change = await adapter.add(ruleFromBody(request.body));
    if (!change.ok) throw refused(change);
    return reply.code(201).send(success(change.rule, ctx.now()));
  });

  // Live validation for the page's one-line form: the verdict is the data, not an error.
  app.post('/api/faults/validate', async (request) => {
    const adapter = faults();
    if (!adapter.validate) throw notImplemented('fault rule validation is not available in this process');
    const change = await adapter.validate(ruleFromBody(request.body));
    const verdict = change.ok
      ? { valid: true, rule: change.rule }
      : { valid: false, message: change.message, ...(typeof change.column === 'number' ? { column: change.column } : {}) };
    return success(verdict, ctx.now());
  });

  app.put<{ Params: { id: string } }>('/api/faults/:id', async (request) => {
    const change = await faults().replace(request.params.id, ruleFromBody(request.body));
    if (!change.ok) throw refused(change);
    return success(change.rule, ctx.now());
  });

  // Rules are tried in order: {"position": N} (1 = first) puts this rule there.
  app.post<{ Params: { id: string } }>('/api/faults/:id/move', async (request) => {
    const adapter = faults();
    if (!adapter.move) throw notImplemented('moving fault rules is not available in this process');
    const position = (request.body as { position?: unknown } | null)?.position;
    if (typeof position !== 'number') throw badRequest('the body must be {"position": N}, N from 1 (tried first)');
    const change = await adapter.move(request.params.id, position);
    if (!change.ok) throw refused(change);
    return success(change.rule, ctx.now());
  });

  app.delete<{ Params: { id: string } }>('/api/faults/:id', async (request) => {
    if (!(await faults().remove(request.params.id))) throw notFound('no fault rule with this id');
    return success({ id: request.params.id, removed: true }, ctx.now());
  });

  app.delete('/api/faults', async () => {
    await faults().clear();
    return success({ cleared: true }, ctx.now());
  });
}
