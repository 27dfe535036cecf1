/**
 * The one table of exit codes, the same for every command (docs/exit-codes.md). A CI job tells a
 * finding (1) from a broken setup (3) by the code alone.
 */
export const EXIT = {
  /** Done: what was asked is true (reconciled, conforms, found). */
  done: 0,
  /** A finding: gaps, a FAIL verdict, nothing matched, a wait that timed out. */
  finding: 1,
  /** Usage: a bad flag or value, or one the service refused as given (a wrong id). */
  usage: 2,
  /** Could not run: the network, authentication, the service failing, a store that cannot be read. */
  couldNotRun: 3,
  /** Interrupted by Ctrl-C (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;
