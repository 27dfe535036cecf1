/**
 * What `hookrelay/testing` loads beside the library (docs/library.md, "Installing"): the published
 * package installs none of them, so that the library installs light. When one is missing, the import
 * fails with the `npm install` that brings them, as the command does (bin/hookrelay.js), instead of
 * the loader's "Cannot find package" for the first one.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const TESTING_PACKAGES = ['better-sqlite3', 'fastify', 'light-my-request'] as const;

/** The names `resolve` cannot find. */
export function missingPackages(names: readonly string[], resolve: (name: string) => unknown): string[] {
  return names.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/** The refusal for `missing`, with the ranges this build was made with (`ranges`: the package's own manifest). */
export function missingPackagesMessage(missing: readonly string[], ranges: Readonly<Record<string, string>>): string {
  const specs = TESTING_PACKAGES.map((name) => `'${name}${ranges[name] ? `@${ranges[name]}` : ''}'`).join(' ');
  return (
    `hookrelay/testing needs ${missing.join(', ')}, which ${missing.length > 1 ? 'are' : 'is'} not installed: installing hookrelay brings the library without the receiver's dependencies. ` +
    `Install them beside it: npm install --save-dev ${specs} (docs/library.md, "Installing")`
  );
}

/** Throws the refusal when a package `hookrelay/testing` loads is missing; `from`: this module's URL. */
export function assertTestingPackages(from: string): void {
  const require = createRequire(from);
  const missing = missingPackages(TESTING_PACKAGES, (name) => require.resolve(name));
  if (missing.length === 0) return;
  // A clone lists them as dependencies; the published package as receiverDependencies (scripts/pack-manifest.mjs).
  let ranges: Record<string, string> = {};
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', from), 'utf8')) as { dependencies?: Record<string, string>; receiverDependencies?: Record<string, string> };
    ranges = { ...manifest.dependencies, ...manifest.receiverDependencies };
  } catch {
    /* no ranges: the names alone */
  }
  throw new Error(missingPackagesMessage(missing, ranges));
}
