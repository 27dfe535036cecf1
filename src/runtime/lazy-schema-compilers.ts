/**
 * fastify's `schemaController` option with compilers that load on first use. By default fastify
 * requires ajv and fast-json-stringify while it builds an instance (~100 ms of a cold start,
 * measured in npm run bench), and hookrelay's routes declare no schema: they parse and check
 * bodies themselves. Should a schema ever be compiled, the real compilers load then.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

// Resolved from fastify's own package: these are its dependencies, not hookrelay's.
const fromFastify = () => createRequire(createRequire(import.meta.url).resolve('fastify'));

type Factory = (...args: unknown[]) => unknown;
let validator: Factory | null = null;
let serializer: Factory | null = null;

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

export const lazySchemaControllers: NonNullable<FastifyServerOptions['schemaController']> = {
  compilersFactory: {
    buildValidator: ((...args: unknown[]) => (validator ??= (fromFastify()('@fastify/ajv-compiler') as () => Factory)())(...args)) as Compilers['buildValidator'],
    buildSerializer: ((...args: unknown[]) => (serializer ??= (fromFastify()('@fastify/fast-json-stringify-compiler') as () => Factory)())(...args)) as Compilers['buildSerializer'],
  },
};
