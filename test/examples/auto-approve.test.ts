/**
 * examples/auto-approve against `hookrelay emulate` (in this process, port 0, a temp folder) with the
 * app as a child process: fire → the app reads the request through hookrelay/client → decides → the
 * decision's event (decidedBy api_client) reaches the app; a request decided first by a reviewer
 * gets 409 and the app treats it as done.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createServiceClient, ServiceError } from '../../src/client/index.js';
import { startEmulator, type Harness } from '../emulate/helpers.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TRIGGERS = ['trustcenter.access_requested', 'trustcenter.access_approved', 'trustcenter.access_rejected'];
const children: ChildProcess[] = [];
let harness: Harness | null = null;

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    }
  }
  await harness?.close();
  harness = null;
});

interface Running {
  url: string;
  /** Resolves with the first JSON line the app printed that `test` accepts. */
  line(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

async function startApp(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/auto-approve/server.ts'], {
    cwd: REPO,
    env: { ...process.env, PORT: '0', TSX_TSCONFIG_PATH: 'examples/auto-approve/tsconfig.json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  const waiting = new Set<{ test: (line: string) => boolean; resolve: (line: string) => void }>();
  const onChunk = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line);
      for (const w of waiting) if (w.test(line)) (waiting.delete(w), w.resolve(line));
    }
  };
  child.stdout!.on('data', onChunk);
  child.stderr!.on('data', onChunk);
  const raw = (test: (line: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const earlier = lines.find(test);
      if (earlier) return resolve(earlier);
      waiting.add({ test, resolve });
      child.once('exit', (code) => reject(new Error(`the app exited (${code}) first:\n${lines.join('\n')}`)));
    });
  const parsed = (l: string): Record<string, unknown> | null => {
    try {
      return l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };
  const listening = await raw((l) => l.startsWith('listening on '));
  return {
    url: listening.slice('listening on '.length),
    line: async (test) => parsed(await raw((l) => { const p = parsed(l); return p !== null && test(p); }))!,
  };
}

describe('examples/auto-approve', () => {
  it('approves an allowed domain, rejects another, each decision event arrives, and a request decided first is done on 409', async () => {
    const h = (harness = await startEmulator({ plan: 'premium' }));
    const client = createServiceClient({ baseUrl: h.app.baseUrl, apiKey: h.keys.aFull });
    try {
      const created = await client.webhooks.create({ name: 'auto-approve', triggers: TRIGGERS, endpoint: 'http://127.0.0.1:9/webhooks', signingEnabled: true });
      const hook = created.webhook.id;
      const env = { HOOKRELAY_API_URL: h.app.baseUrl, HOOKRELAY_API_KEY: h.keys.aFull, WEBHOOK_SECRET: created.signingSecret! };
      // The emulator's requesters are visitorN@example.com: one app allows that domain, the other does not.
      const allowing = await startApp({ ...env, ALLOWED_DOMAINS: 'example.com' });
      const refusing = await startApp({ ...env, ALLOWED_DOMAINS: 'partner.test' });
      const fire = async () => (await h.api('POST', '/v1/_emulator/events', { body: { type: 'trustcenter.access_requested' } })).body.data.recordIds[0] as string;
      const pointAt = (url: string) => client.webhooks.update(hook, { endpoint: url });

      await pointAt(allowing.url);
      const first = await fire();
      expect(await allowing.line((l) => l.decided !== undefined && l.accessRequestId === first)).toMatchObject({ decided: 'approved' });
      expect(await allowing.line((l) => l.seen === 'trustcenter.access_approved' && l.accessRequestId === first)).toMatchObject({ decidedBy: 'api_client' });
      const approved = await client.trustCenter.accessRequest(first);
      expect(approved).toMatchObject({ status: 'approved', decidedVia: 'api', decisionReference: 'auto-approve: example.com is an allowed domain' });
      expect(approved.visitorTokenId).not.toBeNull();

      await pointAt(refusing.url);
      const second = await fire();
      expect(await refusing.line((l) => l.decided !== undefined && l.accessRequestId === second)).toMatchObject({ decided: 'rejected' });
      expect(await refusing.line((l) => l.seen === 'trustcenter.access_rejected' && l.accessRequestId === second)).toMatchObject({ decidedBy: 'api_client' });
      expect(await client.trustCenter.accessRequest(second)).toMatchObject({ status: 'rejected', decidedVia: 'api', rejectionReason: 'auto-approve: example.com is not an allowed domain' });

      // A reviewer decides while the app cannot be reached; the delivery's retry then finds it decided.
      await pointAt('http://127.0.0.1:9/webhooks');
      const third = await fire();
      const reviewed = await h.api('POST', `/v1/_emulator/trust-center/access-requests/${third}/decide`, { body: { decision: 'reject', as: 'reviewer', reason: 'known bad actor' } });
      expect(reviewed.status).toBe(200);
      await pointAt(allowing.url);
      expect(await allowing.line((l) => l.done !== undefined && l.accessRequestId === third)).toEqual({ done: 'already decided', accessRequestId: third });
      expect(await client.trustCenter.accessRequest(third)).toMatchObject({ status: 'rejected', decidedVia: 'app', decisionReference: null });

      // The same 409 reaches a caller of the library as one typed error with the service's envelope.
      const again = await client.trustCenter.approve(first, { reference: 'again' }).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(ServiceError);
      expect(again).toMatchObject({ status: 409, apiCode: 'ACCESS_REQUEST_ALREADY_DECIDED' });
      expect(String((again as ServiceError).message)).not.toContain(h.keys.aFull);
    } finally {
      await client.close();
    }
  }, 60_000);
});
