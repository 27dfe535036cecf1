/**
 * A subscriber's durable cursor, written in order: each write only after the one before it is
 * stored, and only then is the credit of what it covers given back. While one write is in flight,
 * the acks that arrive fold into the next one: a cursor write is a durable commit, and one per frame
 * held a catch-up to the commit rate (≈250 frames/s on a loaded 2-core machine) where one per round
 * trip keeps pace with the client.
 */
import type { BridgeCursors } from '../store/store.js';

/** What a stored write gives back: the deliveries it acknowledged, and their encoded bytes. */
export interface Freed {
  frames: number;
  bytes: number;
}

export interface CursorWritesOptions {
  store: Pick<BridgeCursors, 'ackBridge'>;
  /** `token/name`, as the cursor is kept. */
  name: string;
  clock: () => number;
  onStored(freed: Freed): void;
  onFailed(err: Error): void;
}

export class CursorWrites {
  /** The write waiting for its turn behind the one in flight: acks that arrive meanwhile fold into it. */
  private queued: ({ seq: number } & Freed) | null = null;
  /** Writes queued or running. */
  private pending = 0;
  /** When the cursor was last written (the store's clock). */
  private writtenAt = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly options: CursorWritesOptions) {}

  /** The cursor's time as the store held it when the subscriber connected. */
  loaded(updatedAt: number): void {
    this.writtenAt = updatedAt;
  }

  write(seq: number, freed: Freed = { frames: 0, bytes: 0 }): void {
    if (this.queued) {
      this.queued.seq = Math.max(this.queued.seq, seq);
      this.queued.frames += freed.frames;
      this.queued.bytes += freed.bytes;
      return;
    }
    const entry = { seq, frames: freed.frames, bytes: freed.bytes };
    this.queued = entry;
    this.pending++;
    this.chain = this.chain.then(async () => {
      if (this.queued === entry) this.queued = null; // its turn: later acks start the next write
      const { store, name, clock } = this.options;
      try {
        const now = clock();
        await store.ackBridge(name, entry.seq, now);
        this.writtenAt = now;
        this.pending--;
        this.options.onStored({ frames: entry.frames, bytes: entry.bytes });
      } catch (err) {
        this.pending--;
        this.options.onFailed(err as Error);
      }
    });
  }

  /** A write is queued or running. */
  busy(): boolean {
    return this.pending > 0;
  }

  /** No write is under way and the last one is `refreshMs` old (by the store's clock), or older. */
  stale(refreshMs: number): boolean {
    return this.pending === 0 && this.options.clock() - this.writtenAt >= refreshMs;
  }

  /** Resolves once every write queued so far is done, stored or failed. */
  settled(): Promise<void> {
    return this.chain;
  }
}
