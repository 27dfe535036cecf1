/** The console refreshes its bridge line on every change of the client's state, each wording of it included. */
import { describe, expect, it } from 'vitest';
import { mentionsBridge } from '../../../web/src/views/bridge-view.js';

describe('mentionsBridge', () => {
  it.each([
    'connecting to hooks.example.com as laptop-ana',
    'connected to hooks.example.com as laptop/laptop-ana',
    'resuming 37 missed deliveries',
    'live',
    'connection lost (no pong in 45 s), retrying in 4 s',
    'could not connect (connect ECONNREFUSED 127.0.0.1:4002), retrying in 1 s',
    'the bridge at hooks.example.com refused this client: 401 a valid bridge token is required',
    'bridge: refused a client from 127.0.0.1: no valid bridge token',
  ])('%s', (message) => expect(mentionsBridge(message)).toBe(true));

  it('not an unrelated notice', () => {
    expect(mentionsBridge('fault rules: none')).toBe(false);
    expect(mentionsBridge('retention: pruned 3 deliveries')).toBe(false);
  });
});
