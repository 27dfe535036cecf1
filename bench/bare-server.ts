/** The baseline: a bare fastify route that reads the body as a Buffer and answers 200. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post('/webhooks', async (_request, reply) => reply.code(200).send('{"success":true}'));
app.get('/healthz', async (_request, reply) => reply.code(200).send('{"success":true}'));
await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ event: 'listening', receiver: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/webhooks` })}\n`);
