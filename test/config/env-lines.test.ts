/**
 * A list whose items may hold commas is read one item a line from the environment, by every
 * command that reads it (the one rule in the option specs): listen, connect and `events replay`
 * read HOOKRELAY_FORWARD_HEADER and HOOKRELAY_ROUTE alike. connect used to split the header on commas.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnectConfig } from '../../src/config/connect-config.js';
import { resolveListenConfig } from '../../src/config/listen-config.js';
import { resolveReplaySettings } from '../../src/config/replay-settings.js';
import { tempDir } from '../helpers/temp-dir.js';

const ENV = {
  HOOKRELAY_FORWARD_TO: 'http://127.0.0.1:3000/hook',
  HOOKRELAY_FORWARD_SECRET: 'whsec_forward_0123456789abcdef',
  HOOKRELAY_FORWARD_HEADER: 'Accept: text/html, application/json\n  X-Team: blue  \n',
  HOOKRELAY_ROUTE: 'vendor.*=http://127.0.0.1:3001/a?x=1,2\n\ntrustcenter.*=http://127.0.0.1:3002/b',
};
const HEADERS = [['Accept', 'text/html, application/json'], ['X-Team', 'blue']];
const ROUTES = [{ glob: 'vendor.*', urls: ['http://127.0.0.1:3001/a?x=1,2'] }, { glob: 'trustcenter.*', urls: ['http://127.0.0.1:3002/b'] }];

describe('lists read one item a line from the environment', () => {
  it('are the same for listen, connect and events replay', () => {
    const { dir, remove } = tempDir();
    try {
      const none = join(dir, 'none.json');
      const listen = resolveListenConfig({ flags: { secret: ['whsec_test_0123456789abcdef'], db: join(dir, 'a.db') }, env: ENV, configFile: none });
      if (!listen.ok) throw new Error(listen.problems.join('; '));
      const connect = resolveConnectConfig('ws://127.0.0.1:4002/bridge', { token: 'laptop-token-0123456789abcdefghijklmnop', db: join(dir, 'b.db') }, ENV);
      if (!connect.ok) throw new Error(connect.problems.join('; '));
      const replay = resolveReplaySettings({ timeout: '30s' }, join(dir, 'a.db'), ENV);
      if (!replay.ok) throw new Error(replay.problems.join('; '));
      for (const forward of [listen.config.forward!, connect.config.forward!]) {
        expect(forward.headers).toEqual(HEADERS);
        expect(forward.routes!.map((r) => ({ glob: r.glob, urls: r.urls }))).toEqual(ROUTES);
      }
      expect(replay.settings.settings.headers).toEqual(HEADERS);
      expect(replay.settings.settings.targets!.routes.map((r) => ({ glob: r.glob, urls: r.urls }))).toEqual(ROUTES);
    } finally {
      remove();
    }
  });

  it('ignore a variable that holds only blank lines, as if it were unset', () => {
    const { dir, remove } = tempDir();
    try {
      const listen = resolveListenConfig({ flags: { secret: ['whsec_test_0123456789abcdef'], db: join(dir, 'a.db') }, env: { HOOKRELAY_FAULT: ' \n \n' }, configFile: join(dir, 'none.json') });
      expect(listen.ok && listen.config.faultRules).toEqual([]);
    } finally {
      remove();
    }
  });
});
