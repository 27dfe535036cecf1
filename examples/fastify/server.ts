import Fastify from 'fastify';
import { hookrelayPlugin, isEvent } from 'hookrelay/fastify';

const app = Fastify();
await app.register(hookrelayPlugin, {
  secrets: [process.env.WEBHOOK_SECRET!],
  onDelivery: ({ event }) => {
    console.log(JSON.stringify({ received: event.type, id: event.id, ...(isEvent(event, 'trustcenter.access_approved') ? { decidedBy: event.data.decidedBy } : {}) }));
  },
  onError: (e) => console.error(JSON.stringify({ refused: e.code, hints: e.hints })),
});
const address = await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
console.log(`listening on ${address}/webhooks`);
