// Runs the fetch handler on Node's http server (Deno, Bun and Workers serve it themselves).
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { createHandler } from './handler.js';

const handler = createHandler(process.env.WEBHOOK_SECRET!);
const server = createServer(async (req, res) => {
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as [string, string]])),
    body: req.method === 'GET' || req.method === 'HEAD' ? null : (Readable.toWeb(req) as ReadableStream),
    duplex: 'half',
  } as RequestInit);
  const response = await handler(request);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}/webhooks`);
});
