/**
 * Debian's HAProxy in front of `listen` processes, for the reliability suite. The configuration is
 * the ```haproxy block of docs/deploy.md ("Three instances behind HAProxy"), word for word: only the
 * four loopback ports it names are swapped for this run's, so the documented config is the tested one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { EventEmitter, once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const DEPLOY_DOC = fileURLToPath(new URL('../../../docs/deploy.md', import.meta.url));
const SECTION = 'Three instances behind HAProxy';
/** The ports the documented config uses: HAProxy's, then the three instances'. */
export const DOC_PORTS = { proxy: 8080, instances: [4000, 4010, 4020] } as const;

/** The haproxy binary: on PATH, else Debian's /usr/sbin/haproxy (not on a non-root PATH); null when absent. */
export function findHaproxy(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  try {
    accessSync('/usr/sbin/haproxy', constants.X_OK);
    return '/usr/sbin/haproxy';
  } catch {
    return null;
  }
}

/** The ```haproxy block of docs/deploy.md's section "Three instances behind HAProxy", as written. */
export function documentedHaproxyConfig(): string {
  const doc = readFileSync(DEPLOY_DOC, 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith(`${SECTION}\n`));
  const block = section ? /^```haproxy\n([\s\S]*?)^```$/m.exec(section) : null;
  if (!block) throw new Error(`docs/deploy.md has no \`\`\`haproxy block under "## ${SECTION}"`);
  return block[1]!;
}

/**
 * The documented config with its ports swapped for `proxyPort` and `instancePorts` (in the doc's
 * order), and the backend's server names in that order. Each documented port must appear exactly
 * once: a doc edit that changes one fails here, never silently.
 */
export function haproxyConfig(proxyPort: number, instancePorts: readonly number[]): { config: string; servers: string[] } {
  const documented = documentedHaproxyConfig();
  const swaps = new Map<number, number>([[DOC_PORTS.proxy, proxyPort], ...DOC_PORTS.instances.map((port, i): [number, number] => [port, instancePorts[i]!])]);
  const seen = new Map<number, number>();
  const config = documented.replace(/127\.0\.0\.1:(\d+)\b/g, (whole, port: string) => {
    const to = swaps.get(Number(port));
    if (to === undefined) return whole;
    seen.set(Number(port), (seen.get(Number(port)) ?? 0) + 1);
    return `127.0.0.1:${to}`;
  });
  for (const port of swaps.keys()) {
    if (seen.get(port) !== 1) throw new Error(`docs/deploy.md's HAProxy config names 127.0.0.1:${port} ${seen.get(port) ?? 0} times (expected once)`);
  }
  const names = new Map<number, string>();
  for (const m of config.matchAll(/^\s*server\s+(\S+)\s+127\.0\.0\.1:(\d+)/gm)) names.set(Number(m[2]), m[1]!);
  const servers = instancePorts.map((port) => {
    const name = names.get(port);
    if (!name) throw new Error(`no server line for 127.0.0.1:${port} in the HAProxy config`);
    return name;
  });
  return { config, servers };
}

/** A port that was free a moment ago (HAProxy cannot report a port 0 binding back). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export type ServerState = 'UP' | 'DOWN';

export interface Haproxy {
  /** `http://127.0.0.1:PORT`, HAProxy's frontend. */
  url: string;
  child: ChildProcess;
  /** The config it runs, as written to its folder. */
  config: string;
  /** Backend server names, in the order of the instance ports given. */
  servers: string[];
  /** Every server state change HAProxy announced (its `Server backend/name is UP|DOWN` lines), in order. */
  changes: Array<{ server: string; state: ServerState; at: number }>;
  /** Resolves once HAProxy announces `server` in `state` at index `from` of `changes` or later; rejects after `deadlineMs`. */
  announced(server: string, state: ServerState, from: number, deadlineMs: number): Promise<{ at: number }>;
  output(): string;
  /** Stops it (SIGTERM: HAProxy's immediate stop) and waits for its exit. */
  stop(): Promise<void>;
}

/** Until HAProxy answers `/healthz` (passed to an instance) with 200: there is no "listening" line to wait on. */
async function untilServing(url: string, child: ChildProcess, output: () => string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`haproxy exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    try {
      const res = await request(`${url}/healthz`, { reset: true, headersTimeout: 2_000, bodyTimeout: 2_000 });
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      /* not bound yet */
    }
    if (Date.now() > deadline) throw new Error(`haproxy did not serve ${url}/healthz within ${deadlineMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Writes the documented config (ports swapped) into `dir` and runs `haproxy -f cfg -db` (foreground)
 * as a child, once its frontend answers. A port taken between choosing and binding it: tried again.
 */
export async function startHaproxy(binary: string, dir: string, instancePorts: readonly number[]): Promise<Haproxy> {
  for (let tryNo = 1; ; tryNo++) {
    const port = await freePort();
    const { config, servers } = haproxyConfig(port, instancePorts);
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, config);
    const child = spawn(binary, ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = once(child, 'exit');
    let out = '';
    const changes: Haproxy['changes'] = [];
    const events = new EventEmitter();
    events.setMaxListeners(0);
    let pending = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const m = /Server [^/\s]+\/(\S+) is (UP|DOWN)\b/.exec(line);
        if (m) {
          changes.push({ server: m[1]!, state: m[2] as ServerState, at: Date.now() });
          events.emit('change');
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const url = `http://127.0.0.1:${port}`;
    const handle: Haproxy = {
      url,
      child,
      config,
      servers,
      changes,
      async announced(server, state, from, deadlineMs) {
        const signal = AbortSignal.timeout(deadlineMs);
        for (;;) {
          const hit = changes.slice(from).find((c) => c.server === server && c.state === state);
          if (hit) return { at: hit.at };
          try {
            await once(events, 'change', { signal });
          } catch {
            throw new Error(`haproxy did not announce ${server} ${state} within ${deadlineMs} ms:\n${out}`);
          }
        }
      },
      output: () => out,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      },
    };
    try {
      await untilServing(url, child, () => out, 10_000);
      return handle;
    } catch (err) {
      await handle.stop();
      if (tryNo < 3 && /cannot bind socket/i.test(out)) continue;
      throw err;
    }
  }
}
