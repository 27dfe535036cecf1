/**
 * N WebSocket clients on the console feed, reading (or, with `slow`, never reading) while load
 * runs. Prints how many messages the readers got and whether the slow one was dropped.
 *
 * args: <console port> <clients> <duration ms> <normal|slow>
 */
import WebSocket from 'ws';

const [portText, clientsText, durationText, mode] = process.argv.slice(2);
const port = Number(portText);
const origin = `http://localhost:${port}`;
let messages = 0;
let dropped = 0;
const sockets: WebSocket[] = [];
await Promise.all(
  Array.from({ length: Number(clientsText) }, () =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`ws://localhost:${port}/api/feed`, 'hookrelay.v1', { origin, headers: { host: `localhost:${port}` } });
      ws.once('open', () => {
        if (mode === 'slow') (ws as unknown as { _socket: { pause(): void } })._socket.pause();
        resolve();
      });
      ws.once('error', reject);
      ws.on('message', () => messages++);
      ws.on('close', () => dropped++);
      sockets.push(ws);
    }),
  ),
);
process.stdout.write(`${JSON.stringify({ connected: sockets.length })}\n`);
await new Promise((r) => setTimeout(r, Number(durationText)));
process.stdout.write(`${JSON.stringify({ clients: sockets.length, messages, droppedByServer: dropped })}\n`);
for (const ws of sockets) ws.terminate();
