/** The fault rule tools against a running listen's console: list, add, refuse a bad rule, remove. */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { callConsole } from '../../src/mcp/console-client.js';
import { buildApp } from '../../src/app/build-app.js';
import { freePort } from '../helpers/target-server.js';
import { testListenConfig } from '../helpers/listen-config.js';
import { connect, seededStore } from './harness.js';

const TOKEN = 'console-token-for-mcp-3b1f';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('hookrelay mcp: the fault rule tools', () => {
  it("list, add and remove the rules of a running listen through its console, with the console's own refusals", async () => {
    const { dir, remove } = await seededStore(async () => {});
    cleanups.push(remove);
    const listen = await buildApp(testListenConfig(`${dir}/listen.db`, { console: { port: 0, host: '127.0.0.1', allowedHosts: [], token: TOKEN } }));
    cleanups.push(() => listen.close());
    const h = await connect(`${dir}/hookrelay.db`, { allowWrite: true, env: { HOOKRELAY_CONSOLE_TOKEN: TOKEN } });
    cleanups.push(() => h.close());
    const console = listen.consoleUrl!.replace(/\?.*$/, '');

    expect((await h.call('list_fault_rules', { console })).json.rules).toEqual([]);
    const added = await h.call('add_fault_rule', { console, rule: '503 retry-after=120 attempt=1' });
    expect(added.result.isError, added.text).toBeFalsy();
    expect(added.json.added).toMatchObject({ line: '503 retry-after=120 attempt=1', fired: 0 });
    expect(listen.faults.list().map((r) => r.line)).toEqual(['503 retry-after=120 attempt=1']);
    const listed = await h.call('list_fault_rules', { console });
    expect(listed.json.rules).toMatchObject([{ id: added.json.added.id, line: '503 retry-after=120 attempt=1' }]);

    const bad = await h.call('add_fault_rule', { console, rule: '503 atempt=1' });
    expect(bad.result.isError).toBe(true);
    expect(bad.text).toMatch(/^the console refused \(422 VALIDATION_ERROR\): unknown key .atempt. \(did you mean .attempt.\?\).* at column 5$/);

    const removed = await h.call('remove_fault_rule', { console, id: added.json.added.id });
    expect(removed.json.removed).toMatchObject({ removed: true });
    expect(listen.faults.list()).toEqual([]);
    const again = await h.call('remove_fault_rule', { console, id: added.json.added.id });
    expect(again.result.isError).toBe(true);
    expect(again.text).toMatch(/404 NOT_FOUND/);
    for (const text of h.answers) expect(text).not.toContain(TOKEN);
  });

  it('says where it looked when no console answers, and refuses a console that is not on this machine', async () => {
    const { db, remove } = await seededStore(async () => {});
    cleanups.push(remove);
    const port = await freePort();
    const h = await connect(db, { allowWrite: true, env: { HOOKRELAY_CONSOLE_PORT: String(port) } });
    cleanups.push(() => h.close());
    const none = await h.call('list_fault_rules');
    expect(none.result.isError).toBe(true);
    expect(none.text).toContain(`no console answers at http://127.0.0.1:${port}`);
    expect(none.text).toMatch(/fault rules live in a running `hookrelay listen`/);
    const remote = await h.call('add_fault_rule', { rule: '503', console: 'http://example.com:4001' });
    expect(remote.result.isError).toBe(true);
    expect(remote.text).toMatch(/example\.com:4001 is not on this machine/);
    // Without --allow-write only the list is offered.
    const reader = await connect(db);
    cleanups.push(() => reader.close());
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('list_fault_rules');
    expect(names).not.toContain('add_fault_rule');
    expect(names).not.toContain('remove_fault_rule');
  });
});

describe('the console client of the MCP server', () => {
  it('drops an answer past its bound as it streams, never holding it whole', async () => {
    let sent = 0;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      // An endless answer: it stops only when the client goes away.
      const pump = () => {
        while (sent < 512 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 512 * 1024 * 1024) res.once('drain', pump);
      };
      res.on('close', () => (sent = Infinity));
      pump();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    try {
      await expect(callConsole({ base: new URL(`http://127.0.0.1:${port}`), token: null }, 'GET', '/api/faults')).rejects.toThrow(/answered more than \d+ bytes/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
