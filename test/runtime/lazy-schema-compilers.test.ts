/**
 * hookrelay's fastify instances load ajv and fast-json-stringify only if a schema is ever compiled
 * (cold start); a route that does declare one must still be validated and serialized as usual.
 */
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { lazySchemaControllers } from '../../src/runtime/lazy-schema-compilers.js';

it('validates and serializes a route with a schema, through compilers loaded on first use', async () => {
  const app = Fastify({ logger: false, schemaController: lazySchemaControllers });
  app.post(
    '/x',
    {
      schema: {
        body: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } },
        response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      },
    },
    async () => ({ ok: true, dropped: 'by the serializer' }),
  );
  try {
    const bad = await app.inject({ method: 'POST', url: '/x', payload: { b: 1 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/must have required property 'a'/);
    const good = await app.inject({ method: 'POST', url: '/x', payload: { a: 1 } });
    expect(good.statusCode).toBe(200);
    expect(good.body).toBe('{"ok":true}');
  } finally {
    await app.close();
  }
});
