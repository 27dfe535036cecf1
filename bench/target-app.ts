/** A stand-in for the user's app (a forward target): answers 204 to everything. */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
  });
});
server.keepAliveTimeout = 10_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ listening: port })}\n`));
