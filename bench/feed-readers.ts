/** N WebSocket clients that read every frame of a bare feed (bench/feed-profile.ts); prints a line once all are open. */
import WebSocket from 'ws';

const [port, clients] = process.argv.slice(2).map(Number) as [number, number];
let open = 0;
for (let i = 0; i < clients; i++) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
  ws.on('open', () => {
    if (++open === clients) process.stdout.write('open\n');
  });
  // As the page does: every frame parsed.
  ws.on('message', (data) => JSON.parse(String(data)));
}
