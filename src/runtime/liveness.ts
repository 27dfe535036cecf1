/**
 * A WebSocket peer's liveness, for both ends of the bridge: a ping every `pingMs`; a peer from which
 * nothing (pong, ping or frame) was heard for `deadMs` is dead, found at that deadline itself (a
 * check only at each ping would see it up to `pingMs` late). Wall time, not an injected clock: after
 * a laptop's sleep the first tick sees the silence.
 */
export interface LivenessOptions {
  pingMs: number;
  deadMs: number;
  isOpen(): boolean;
  ping(): void;
  /** Called once, when the peer has been silent for `deadMs`. */
  onSilent(): void;
}

export interface Liveness {
  /** Something was heard from the peer. */
  heard(): void;
  stop(): void;
}

export function watchLiveness(options: LivenessOptions): Liveness {
  let heardAt = Date.now();
  let stopped = false;
  let deadline: NodeJS.Timeout | null = null;
  const silent = (): boolean => {
    if (stopped || !options.isOpen() || Date.now() - heardAt < options.deadMs) return false;
    stop();
    options.onSilent();
    return true;
  };
  // Moved when it fires, not on every frame heard: a busy connection sets no timer per frame.
  const watch = () => {
    if (silent() || stopped || !options.isOpen()) return;
    deadline = setTimeout(watch, Math.max(1, heardAt + options.deadMs - Date.now()));
    deadline.unref();
  };
  const ping = setInterval(() => {
    if (options.isOpen() && !silent()) options.ping();
  }, options.pingMs);
  ping.unref();
  function stop(): void {
    stopped = true;
    clearInterval(ping);
    if (deadline) clearTimeout(deadline);
  }
  watch();
  return { heard: () => void (heardAt = Date.now()), stop };
}
