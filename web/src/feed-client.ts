/**
 * The reconnecting feed client. On reconnect it tells the server the last message it saw
 * (`since`, `epoch`) and gets what it missed from the backlog, or `resync` when it missed more.
 */
import type { FeedMessage } from './types.js';

export type FeedState = 'connecting' | 'live' | 'reconnecting';

export interface FeedHandlers {
  onMessage(message: FeedMessage): void;
  onState(state: FeedState): void;
  /** The client missed messages the backlog no longer holds: reload lists. */
  onResync(): void;
}

const PROTOCOL = 'hookrelay.v1';
const TOKEN_SAFE = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

type IncomingMessage = { type?: string; n?: number; data?: { epoch?: string; resync?: boolean } };

export function connectFeed(path: string, token: string | null, handlers: FeedHandlers): { close(): void } {
  let since: number | null = null;
  let epoch: string | null = null;
  let failures = 0;
  let socket: WebSocket | null = null;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    const url = new URL(path, location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    if (since !== null) url.searchParams.set('since', String(since));
    if (epoch !== null) url.searchParams.set('epoch', epoch);
    const protocols = [PROTOCOL];
    // The token travels as a subprotocol (kept out of URLs and logs) when its characters allow.
    if (token && TOKEN_SAFE.test(token)) protocols.push(`hookrelay.token.${token}`);
    else if (token) url.searchParams.set('token', token);
    handlers.onState(failures === 0 ? 'connecting' : 'reconnecting');
    const ws = new WebSocket(url.href, protocols);
    socket = ws;
    ws.onopen = () => {
      failures = 0;
      handlers.onState('live');
    };
    ws.onmessage = (event) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(event.data));
      } catch {
        return;
      }
      // A frame holds one message, or the messages of one window (~50 ms), or the backlog, as an array.
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) handle(message as IncomingMessage);
    };
    const handle = (message: IncomingMessage) => {
      if (message === null || typeof message !== 'object') return;
      if (message.type === 'hello') {
        if (message.data?.resync) {
          since = null;
          handlers.onResync();
        }
        epoch = message.data?.epoch ?? null;
        return;
      }
      if (typeof message.n !== 'number') return;
      if (since !== null && message.n <= since) return;
      since = message.n;
      handlers.onMessage(message as FeedMessage);
    };
    ws.onclose = () => {
      if (socket !== ws || closed) return;
      failures += 1;
      handlers.onState('reconnecting');
      const delay = Math.min(10_000, 500 * 2 ** Math.min(failures - 1, 5)) * (0.75 + Math.random() / 2);
      timer = setTimeout(open, delay);
    };
  };
  open();

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      socket?.close();
    },
  };
}
