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

/** What a replay that cannot run says to do, in the words of the command that runs the node. */
export interface ReplayAdvice {
  noTarget: string;
  noSecret: string;
}

export function replayAdviceOf(command: 'listen' | 'connect'): ReplayAdvice {
  return {
    noTarget: `no target: pass a URL, or start ${command} with --forward-to`,
    noSecret:
      command === 'listen'
        ? 'no secret to sign the replay with: start listen with --secret or --forward-secret'
        : 'no secret to sign the replay with: start connect with --forward-to, which makes or reads the development secret, or --forward-secret',
  };
}
