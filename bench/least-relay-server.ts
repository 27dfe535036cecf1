/**
 * The least durable relay there is on this machine, for the low-load latency of scenario 3 (issue
 * "Receive and hand off at the floor, second pass"): a plain node:http route that appends the body
 * to one file and fdatasyncs it on the main thread, answers 200, then POSTs the body to the app
 * through undici on kept-alive connections. No verify, no parse, no SQLite, no worker thread, no
 * record of the try: any relay that answers only after its write is durable and then hands on adds
 * at least this much to a delivery's trip. Not a receiver anyone should run.
 *
 *   node bench/.build/bench/least-relay-server.js <port> <file> <app URL>
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [portArg, file, appUrl] = process.argv.slice(2);
if (!portArg || !file || !appUrl) throw new Error('usage: least-relay-server.js <port> <file> <app URL>');
const fd = openSync(file, 'w');
const app = new URL(appUrl);
const pool = new Pool(app.origin, { connections: 16 });

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    writeSync(fd, body);
    fdatasyncSync(fd);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    // The app's bench matches arrivals on the delivery id (bench/relay-latency.ts).
    const headers = { 'content-type': 'application/json', 'x-service-delivery': String(req.headers['x-service-delivery'] ?? '') };
    pool.request({ path: app.pathname, method: 'POST', body, headers }).then((answer) => answer.body.dump(), () => {});
  });
});
server.listen(Number(portArg), '127.0.0.1');
process.once('SIGTERM', () => {
  closeSync(fd);
  process.exit(0);
});
