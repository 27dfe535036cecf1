/**
 * Requests of unusual shape on a real socket: no body, no Content-Type, chunked, HTTP/1.0 and
 * pipelined. Each gets its 4xx (or its 2xx when it is a valid delivery), never a 5xx.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppHandle } from '../../src/app/build-app.js';
import { signedRequest } from '../helpers/signed-delivery.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { tempDir } from '../helpers/temp-dir.js';

let app: AppHandle;
let remove: () => void;

beforeAll(async () => {
  const dir = tempDir();
  remove = dir.remove;
  app = await buildApp(testListenConfig(join(dir.dir, 'odd.db')));
});
afterAll(async () => {
  await app.close();
  remove();
});

/** Writes the bytes (the last request says `connection: close`) and returns every status line answered before the server closed. */
function exchange(wire: string | Buffer): Promise<{ statuses: number[]; text: string }> {
  const url = new URL(app.receiverUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('no answer within 10 s'));
    });
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ statuses: [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1])), text }));
    socket.write(wire);
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function signedWire(version: '1.0' | '1.1', framing: 'length' | 'chunked', connection: 'close' | 'keep-alive' = 'close'): string {
  const req = signedRequest({ t: nowSeconds() });
  const head = [`POST /webhooks HTTP/${version}`, 'host: 127.0.0.1', `connection: ${connection}`, ...Object.entries(req.headers).map(([n, v]) => `${n}: ${v}`)];
  const body = req.body.toString('latin1');
  if (framing === 'chunked') return `${[...head, 'transfer-encoding: chunked'].join('\r\n')}\r\n\r\n${req.body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  return `${[...head, `content-length: ${req.body.length}`].join('\r\n')}\r\n\r\n${body}`;
}

describe('requests of unusual shape', () => {
  it.each([
    ['no Content-Type and no body', 'POST /webhooks HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'],
    ['no Content-Type, Content-Length: 0', 'POST /webhooks HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'],
    ['a Content-Type and no body', 'POST /webhooks HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n'],
    ['HTTP/1.0 with no body', 'POST /webhooks HTTP/1.0\r\nhost: x\r\n\r\n'],
    ['an empty chunked body', 'POST /webhooks HTTP/1.1\r\nhost: x\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n'],
  ])('answers %s with 400 SIGNATURE_MISSING', async (_name, wire) => {
    const { statuses, text } = await exchange(wire);
    expect(statuses).toEqual([400]);
    expect(text).toContain('SIGNATURE_MISSING');
  });

  it('accepts a signed delivery over HTTP/1.0 and chunked HTTP/1.1', async () => {
    expect((await exchange(signedWire('1.0', 'length'))).statuses).toEqual([200]);
    expect((await exchange(signedWire('1.1', 'chunked'))).statuses).toEqual([200]);
  });

  it('answers pipelined requests in order, an empty one among them', async () => {
    const empty = 'POST /webhooks HTTP/1.1\r\nhost: x\r\n\r\n';
    const { statuses } = await exchange(signedWire('1.1', 'length', 'keep-alive') + empty + signedWire('1.1', 'chunked'));
    expect(statuses).toEqual([200, 400, 200]);
  });
});
