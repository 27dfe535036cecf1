/**
 * docs/library.md (shipped in the tarball) documents every option of `startTestReceiver`, read from
 * its type in src/testing/start-test-receiver.ts: each has a row with its default, and appears in
 * an example. An option added without its line there fails here. Its first example runs as written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it, vi } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE = 'src/testing/start-test-receiver.ts';

function optionNames(): string[] {
  const source = ts.createSourceFile(SOURCE, readFileSync(join(REPO, SOURCE), 'utf8'), ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'TestReceiverOptions') return;
    for (const member of node.members) if (member.name && ts.isIdentifier(member.name)) names.push(member.name.text);
  });
  return names;
}

/** The part of the docs about hookrelay/testing: from its heading to the next one. */
function testingSection(): string {
  const docs = readFileSync(join(REPO, 'docs', 'library.md'), 'utf8');
  const start = docs.indexOf('## Tests: `hookrelay/testing`');
  expect(start).toBeGreaterThan(-1);
  const end = docs.indexOf('\n## ', start + 1);
  return docs.slice(start, end === -1 ? undefined : end);
}

describe('docs/library.md on startTestReceiver', () => {
  it('gives every option its default and an example', () => {
    const names = optionNames();
    expect(names).toEqual(expect.arrayContaining(['secret', 'extraSecrets', 'toleranceSeconds', 'clock']));
    const section = testingSection();
    const defaults = new Map<string, string>();
    for (const line of section.split('\n')) {
      const row = /^\| `(\w+)` \| ([^|]+) \|/.exec(line);
      if (row) defaults.set(row[1]!, row[2]!.trim());
    }
    const examples = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
    for (const name of names) {
      expect(defaults.get(name) ?? '', `the default of ${name}`).not.toBe('');
      expect(examples, `an example with ${name}`).toMatch(new RegExp(`startTestReceiver\\(\\{[^;]*\\b${name}:`));
    }
  });
});

describe("docs/library.md's first example", () => {
  it('runs as written, against this build of the package', async () => {
    const docs = readFileSync(join(REPO, 'docs', 'library.md'), 'utf8');
    const core = docs.slice(docs.indexOf('## Core'));
    const block = /```ts\n([\s\S]*?)```/.exec(core)![1]!;
    expect(block).toContain("from 'hookrelay'");
    const dir = mkdtempSync(join(tmpdir(), 'hookrelay-library-example-'));
    try {
      const file = join(dir, 'verify.ts');
      writeFileSync(file, block.replace("from 'hookrelay'", `from ${JSON.stringify(pathToFileURL(join(REPO, 'src/index.ts')).href)}`));
      const lines: unknown[][] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args));
      try {
        await import(pathToFileURL(file).href);
      } finally {
        log.mockRestore();
      }
      expect(lines).toEqual([[true, 0], [true]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
