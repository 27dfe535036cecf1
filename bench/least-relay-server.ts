/**
 * The leanest durable relay built here, a reference for the low-load latency of scenario 3 (issue
 * "Receive and hand off at the floor, second pass"): a plain node:http route that writes the body
 * over the start of one preallocated file (so an fdatasync flushes data, not a new size) and
 * fdatasyncs it on the main thread, starts the POST of the body to the app through undici on
 * kept-alive connections, then answers 200. No verify, no parse, no SQLite, no worker thread, no
 * record of the try. Not a receiver anyone should run.
 *
 *   node bench/.build/bench/least-relay-server.js <port> <file> <app URL>
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [portArg, file, appUrl] = process.argv.slice(2);
if (!portArg || !file || !appUrl) throw new Error('usage: least-relay-server.js <port> <file> <app URL>');
const fd = openSync(file, 'w');
// Bodies are written at offset 0 of this space: the file's size never changes after the start.
const PREALLOCATED = 1024 * 1024;
writeSync(fd, Buffer.alloc(PREALLOCATED), 0, PREALLOCATED, 0);
fdatasyncSync(fd);
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
    writeSync(fd, body, 0, Math.min(body.length, PREALLOCATED), 0);
    fdatasyncSync(fd);
    // The app's bench matches arrivals on the delivery id (bench/relay-latency.ts).
    const headers = { 'content-type': 'application/json', 'x-service-delivery': String(req.headers['x-service-delivery'] ?? '') };
    pool.request({ path: app.pathname, method: 'POST', body, headers }).then((answer) => answer.body.dump(), () => {});
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  });
});
server.listen(Number(portArg), '127.0.0.1');
process.once('SIGTERM', () => {
  closeSync(fd);
  process.exit(0);
});
