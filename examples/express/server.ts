import express from 'express';
import { hookrelay, isEvent, memoryDedupe } from 'hookrelay/express';

const app = express();
app.post('/webhooks', hookrelay({ secrets: [process.env.WEBHOOK_SECRET!], dedupe: memoryDedupe(), onError: (e) => console.error(JSON.stringify({ refused: e.code, hints: e.hints })) }), (req, res) => {
  const event = req.webhook!;
  console.log(JSON.stringify({ received: event.type, id: event.id, ...(isEvent(event, 'trustcenter.access_approved') ? { decidedBy: event.data.decidedBy } : {}) }));
  res.sendStatus(200);
});
const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}/webhooks`);
});
