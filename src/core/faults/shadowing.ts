/**
 * Which earlier rule hides a rule: first matching rule wins (match-rule.ts), so a rule placed behind
 * one that always fires for every arrival it would match never fires. Only certain shadowing is
 * reported: an earlier rule with a probability below 1 or a `times` cap may let arrivals through,
 * and glob containment is decided only where it is sure (the same glob, a glob of stars only, or a
 * later literal that the earlier glob matches).
 */
import { globMatch } from './glob.js';
import type { AttemptRange, FaultMatch, FaultRule } from './rule.js';

/** The index of the first rule before `index` that hides `rules[index]` completely, or null. */
export function shadowingRule(rules: readonly FaultRule[], index: number): number | null {
  const later = rules[index];
  if (!later) return null;
  for (let i = 0; i < index; i++) if (hides(rules[i]!, later)) return i;
  return null;
}

function hides(earlier: FaultRule, later: FaultRule): boolean {
  if (Boolean(earlier.beforeVerify) !== Boolean(later.beforeVerify)) return false; // different stages
  if (earlier.limit !== undefined || (earlier.match.p !== undefined && earlier.match.p < 1)) return false;
  return covers(earlier.match, later.match);
}

function covers(e: FaultMatch, l: FaultMatch): boolean {
  return globCovers(e.trigger, l.trigger) && globCovers(e.delivery, l.delivery) && rangeCovers(e.attempt, l.attempt) && rangeCovers(e.arrival, l.arrival);
}

function globCovers(earlier: string | undefined, later: string | undefined): boolean {
  if (earlier === undefined || /^\*+$/.test(earlier)) return true;
  if (later === undefined) return false;
  if (earlier === later) return true;
  return !/[*?]/.test(later) && globMatch(earlier, later);
}

function rangeCovers(earlier: AttemptRange | undefined, later: AttemptRange | undefined): boolean {
  if (earlier === undefined) return true;
  if (later === undefined) return false;
  if (later.from < earlier.from) return false;
  if (earlier.to === null) return true;
  return later.to !== null && later.to <= earlier.to;
}
