/**
 * Work sent elsewhere and not answered yet, oldest first, found again by its ticket. Tickets
 * increase with each add and answers come back in ticket order, so the entry answered is nearly
 * always the oldest and every operation is O(1). Each entry's deadline is later than the one
 * before it, so only the oldest can be due.
 *
 * Why not a `Map<ticket, waiter>`: V8 moves a long-lived Map's table to the old generation, and
 * each rehash leaves the previous table there, dead but still pointing at the entries it held
 * (and at the next table). A young-generation collection treats every such pointer as live until
 * the next full collection, so each request that waited in a discarded table, with everything its
 * promise led to, was kept and promoted. Measured on the receive path (bench/notes.md, session
 * 12): ~0.9 MB promoted at every scavenge with the Map, ~2 KB without. This queue is a ring whose
 * slots are cleared when taken, and a replaced ring is cleared before it is dropped, so no
 * discarded array points at anything.
 */
export interface Ticketed {
  readonly ticket: number;
  /** performance.now() time past which the entry is due. */
  readonly at: number;
}

export interface TicketQueue<T extends Ticketed> {
  /** Adds an entry whose ticket and deadline are above every earlier entry's. */
  add(entry: T): void;
  /** Removes and returns the entry of `ticket`; undefined when it is not held (already taken). */
  take(ticket: number): T | undefined;
  /** Removes and returns the oldest entry when its deadline is at or before `now`. */
  takeDue(now: number): T | undefined;
  /** The oldest entry, left in place. */
  oldest(): T | undefined;
  /** Removes and returns every entry, oldest first. */
  takeAll(): T[];
  /** The entries held, oldest first (a copy). */
  values(): T[];
  readonly size: number;
}

const FIRST_CAPACITY = 64;

export function createTicketQueue<T extends Ticketed>(): TicketQueue<T> {
  let slots: Array<T | undefined> = new Array<T | undefined>(FIRST_CAPACITY).fill(undefined);
  let mask = FIRST_CAPACITY - 1;
  // `head` and `end` count adds (not slot indexes): the ring holds positions head..end-1, of
  // which some may be empty (taken out of order).
  let head = 0;
  let end = 0;
  let size = 0;

  const skipTaken = () => {
    while (head < end && slots[head & mask] === undefined) head++;
  };

  const grow = () => {
    const next = new Array<T | undefined>(slots.length * 2).fill(undefined);
    const nextMask = next.length - 1;
    for (let p = head; p < end; p++) next[p & nextMask] = slots[p & mask];
    slots.fill(undefined);
    slots = next;
    mask = nextMask;
  };

  const removeAt = (p: number): T => {
    const entry = slots[p & mask]!;
    slots[p & mask] = undefined;
    size--;
    skipTaken();
    return entry;
  };

  const values = (): T[] => {
    const out: T[] = [];
    for (let p = head; p < end; p++) {
      const entry = slots[p & mask];
      if (entry !== undefined) out.push(entry);
    }
    return out;
  };

  return {
    add(entry) {
      if (end - head === slots.length) grow();
      slots[end & mask] = entry;
      end++;
      size++;
    },
    take(ticket) {
      for (let p = head; p < end; p++) {
        const entry = slots[p & mask];
        if (entry === undefined) continue;
        if (entry.ticket === ticket) return removeAt(p);
        // Later entries have higher tickets: this one is not held.
        if (entry.ticket > ticket) return undefined;
      }
      return undefined;
    },
    takeDue(now) {
      if (size === 0) return undefined;
      const oldest = slots[head & mask]!;
      return oldest.at <= now ? removeAt(head) : undefined;
    },
    oldest: () => (size === 0 ? undefined : slots[head & mask]),
    takeAll() {
      const all = values();
      slots.fill(undefined);
      head = end = size = 0;
      return all;
    },
    values,
    get size() {
      return size;
    },
  };
}
