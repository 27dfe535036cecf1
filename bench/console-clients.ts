/**
 * N WebSocket clients on the console feed, reading (or, with `slow`, never reading) while load
 * runs. Prints how many frames the readers got and whether the slow one was dropped.
 *
 * args: <console port> <clients> <duration ms> <normal|slow>
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';

const [portText, clientsText, durationText, mode] = process.argv.slice(2);
const port = Number(portText);
const origin = `http://localhost:${port}`;
let frames = 0;
let dropped = 0;
const sockets: WebSocket[] = [];

/**
 * A console that never reads: a raw socket that completes the WebSocket handshake and then stops
 * reading for good (the `ws` client resumes a paused socket on its own, so it cannot play this).
 */
async function neverReading(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `GET /api/feed HTTP/1.1\r\nHost: localhost:${port}\r\nOrigin: ${origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: hookrelay.v1\r\n\r\n`,
  );
  const head = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
  if (!head.startsWith('HTTP/1.1 101')) throw new Error(`no upgrade: ${head.split('\r\n')[0]}`);
  socket.pause();
  return socket;
}

if (mode === 'slow') {
  const raw = await Promise.all(Array.from({ length: Number(clientsText) }, neverReading));
  process.stdout.write(`${JSON.stringify({ connected: raw.length })}\n`);
  await new Promise((r) => setTimeout(r, Number(durationText)));
  // A paused socket cannot see the server's close: read what is buffered now, and count the
  // sockets that then end (dropped) within a bounded wait; one still open was not dropped.
  await Promise.all(
    raw.map(
      (socket) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 3000);
          socket.once('close', () => {
            dropped++;
            clearTimeout(timer);
            resolve();
          });
          socket.on('data', () => {});
          socket.resume();
        }),
    ),
  );
  process.stdout.write(`${JSON.stringify({ clients: raw.length, frames: 0, droppedByServer: dropped })}\n`);
  for (const socket of raw) socket.destroy();
  process.exit(0);
}

await Promise.all(
  Array.from({ length: Number(clientsText) }, () =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`ws://localhost:${port}/api/feed`, 'hookrelay.v1', { origin, headers: { host: `localhost:${port}` } });
      ws.once('open', () => resolve());
      ws.once('error', reject);
      // Frames, not messages: a frame holds a window's messages (the page's parse is not the server's cost).
      ws.on('message', () => frames++);
      ws.on('close', () => dropped++);
      sockets.push(ws);
    }),
  ),
);
process.stdout.write(`${JSON.stringify({ connected: sockets.length })}\n`);
await new Promise((r) => setTimeout(r, Number(durationText)));
process.stdout.write(`${JSON.stringify({ clients: sockets.length, frames, droppedByServer: dropped })}\n`);
for (const ws of sockets) ws.terminate();
