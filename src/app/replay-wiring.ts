/** What `listen` and `connect` give the one replayer (src/relay/replay.ts): their forward settings. */
import type { ForwardConfig } from '../config/listen-config.js';
import type { ReplaySettings } from '../relay/replay.js';

/** A replay signs, routes, trusts and adds headers as the relay does; with no forward, a URL must be given and the receiver's primary secret signs. */
export function replaySettingsOf(forward: ForwardConfig | null | undefined, primarySecret: string | null): ReplaySettings {
  return {
    secret: forward?.secret ?? primarySecret,
    timeoutMs: forward?.timeoutMs ?? 30_000,
    headers: forward?.headers ?? [],
    ...(forward?.trust ? { trust: forward.trust } : {}),
    targets: forward ? { to: forward.to, routes: forward.routes ?? [] } : null,
  };
}

export const LISTEN_REPLAY_ADVICE = {
  noTarget: 'no target: pass a URL, or start listen with --forward-to',
  noSecret: 'no secret to sign the replay with: start listen with --secret or --forward-secret',
};

export const CONNECT_REPLAY_ADVICE = {
  noTarget: 'no target: pass a URL, or start connect with --forward-to',
  noSecret: 'no secret to sign the replay with: start connect with --forward-to, which makes or reads the development secret, or --forward-secret',
};
