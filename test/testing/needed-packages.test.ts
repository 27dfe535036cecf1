/** needed-packages.ts: hookrelay/testing names what is missing and the npm install that brings it. */
import { describe, expect, it } from 'vitest';
import { assertTestingPackages, missingPackages, missingPackagesMessage, TESTING_PACKAGES } from '../../src/testing/needed-packages.js';

describe('hookrelay/testing without its packages', () => {
  it('finds every missing one, not only the first', () => {
    const resolve = (name: string) => {
      if (name !== 'fastify') throw new Error(`Cannot find package '${name}'`);
      return name;
    };
    expect(missingPackages(TESTING_PACKAGES, resolve)).toEqual(['better-sqlite3', 'light-my-request']);
  });

  it('says which, and gives the one install command with the ranges it was built with', () => {
    const message = missingPackagesMessage(['better-sqlite3', 'fastify'], { 'better-sqlite3': '^12.11.1', fastify: '^5.12.8', 'light-my-request': '6.6.0' });
    expect(message).toBe(
      "hookrelay/testing needs better-sqlite3, fastify, which are not installed: installing hookrelay brings the library without the receiver's dependencies. " +
        "Install them beside it: npm install --save-dev 'better-sqlite3@^12.11.1' 'fastify@^5.12.8' 'light-my-request@6.6.0' (docs/library.md, \"Installing\")",
    );
  });

  it('lets the import go on in this repository, where they are installed', () => {
    expect(() => assertTestingPackages(new URL('../../src/testing/index.ts', import.meta.url).href)).not.toThrow();
  });
});
