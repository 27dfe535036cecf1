/**
 * Secrets typed as flags. The process list (`ps`, /proc/PID/cmdline) shows every argument to every
 * user of the machine, so each flag that carries a secret says so in its help and warns when used,
 * in these words, naming the variable that keeps it out of sight.
 */
/** What the help of a secret-bearing flag adds to its description. */
export const PROCESS_LIST_NOTE = 'visible in the process list: prefer the env variable';

/** The warning for a secret given as `flag` rather than in the variable `env`; never holds the secret. */
export function secretFlagWarning(flag: string, env: string): string {
  return `${flag} is visible to every user of this machine in the process list; prefer ${env}`;
}

/**
 * One warning per secret-bearing setting (`secret: true` in option-specs.ts) whose source is a
 * flag, in the order of `specs`. Typed by shape: option-specs.ts imports this module.
 */
export function secretFlagWarnings(specs: ReadonlyArray<{ key: string; flag: string; env: string; secret?: true }>, sources: Readonly<Record<string, string>>): string[] {
  return specs.filter((spec) => spec.secret === true && sources[spec.key] === 'flag').map((spec) => secretFlagWarning(spec.flag, spec.env));
}
