/**
 * The Web Crypto path is portable, proven two ways:
 * - statically: the import graph of hookrelay's portable entry (src/kit/web.ts) and of
 *   hookrelay/fetch (src/kit/fetch.ts), as it runs (types erased), holds no Node module, no
 *   library and no Node global;
 * - at run time: that graph, compiled alone into a temporary folder, runs in a Node where every
 *   built-in module is refused to it and `Buffer` is gone, and its `verifyAsync` agrees with Node's
 *   synchronous `verify` on 10,000 fast-check cases.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { sign } from '../../src/core/signature/sign.js';
import type { VerifyOptions, VerifyResult } from '../../src/core/signature/verify.js';
import { verify } from '../../src/kit/verify-now.js';
import { tempDir } from '../helpers/temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const ENTRIES = ['src/kit/web.ts', 'src/kit/fetch.ts'];
const NODE_GLOBALS = new Set(['Buffer', 'process', 'require', 'module', '__dirname', '__filename', 'global', 'setImmediate']);

interface Compiled {
  /** Repository-relative .ts path → transpiled JavaScript. */
  files: Map<string, string>;
  problems: string[];
}

/** Follows every runtime import from the entries; type-only imports are erased as tsc erases them. */
function compileGraph(entries: readonly string[]): Compiled {
  const files = new Map<string, string>();
  const problems: string[] = [];
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (files.has(file)) continue;
    const source = readFileSync(join(REPO, file), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true }, fileName: file }).outputText;
    files.set(file, js);
    const ast = ts.createSourceFile(file, js, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
    const visit = (node: ts.Node) => {
      let specifier: string | undefined;
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) specifier = node.moduleSpecifier.text;
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) specifier = ts.isStringLiteral(node.arguments[0]!) ? node.arguments[0].text : '(computed)';
      if (specifier !== undefined) {
        if (!specifier.startsWith('./') && !specifier.startsWith('../')) problems.push(`${file} imports ${specifier}`);
        else queue.push(relative(REPO, resolve(REPO, dirname(file), specifier)).replace(/\.js$/, '.ts'));
      }
      if (ts.isIdentifier(node) && NODE_GLOBALS.has(node.text)) {
        const parent = node.parent;
        const isMemberName = (ts.isPropertyAccessExpression(parent) && parent.name === node) || (ts.isPropertyAssignment(parent) && parent.name === node);
        if (!isMemberName) problems.push(`${file} uses the Node global ${node.text}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(ast);
  }
  return { files, problems };
}

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

describe('the Web Crypto path', () => {
  it('imports no Node module, no library and uses no Node global, through its whole graph', () => {
    const { files, problems } = compileGraph(ENTRIES);
    expect(problems).toEqual([]);
    expect([...files.keys()]).toEqual(expect.arrayContaining(['src/kit/verify-async.ts', 'src/core/signature/signature-header.ts', 'src/core/signature/verify-verdict.ts', 'src/kit/read-envelope.ts']));
    // The check sees what it looks for: Node's own verify would fail it.
    expect(compileGraph(['src/core/signature/verify.ts']).problems).toEqual(expect.arrayContaining(['src/core/signature/verify.ts imports node:crypto']));
    expect(compileGraph(['src/core/bridge-protocol.ts']).problems).toEqual(expect.arrayContaining(['src/core/bridge-protocol.ts uses the Node global Buffer']));
    // The envelope check is the core's own, not a copy.
    expect([...files.keys()]).toContain('src/core/envelope-check.ts');
  });

  it('agrees with Node’s verify on 10,000 cases, run where node:crypto and Buffer are unavailable to it', async () => {
    const { dir, remove } = tempDir('hookrelay-portable-');
    cleanups.push(remove);
    const { files } = compileGraph(ENTRIES);
    const graph = join(dir, 'graph');
    for (const [file, js] of files) {
      const out = join(graph, file.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, js);
    }
    writeFileSync(join(graph, 'package.json'), '{"type":"module"}\n');
    // Every built-in module is refused to the graph (node:crypto among them).
    writeFileSync(join(dir, 'refuse-builtins.mjs'), `
import { isBuiltin } from 'node:module';
const graph = ${JSON.stringify(pathToFileURL(graph).href)};
export async function resolve(specifier, context, next) {
  if (context.parentURL?.startsWith(graph) && isBuiltin(specifier)) throw new Error('refused to the portable graph: ' + specifier);
  return next(specifier, context);
}`);
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'refuse-builtins.mjs')).href)});\n`);
    const cases = fc.sample(verifyCase(), { numRuns: 10_000, seed: 1806 });
    writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases.map(toWire)));
    writeFileSync(join(dir, 'run.mjs'), `
import { readFileSync } from 'node:fs';
const cases = JSON.parse(readFileSync(${JSON.stringify(join(dir, 'cases.json'))}, 'utf8'));
const fromHex = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
for (const c of cases) if (c.bodyHex !== undefined) c.body = fromHex(c.bodyHex);
delete globalThis.Buffer;
let probe = 'no';
try { await import(${JSON.stringify(pathToFileURL(join(graph, 'probe.js')).href)}); } catch (err) { probe = String(err.message); }
const { verifyAsync } = await import(${JSON.stringify(pathToFileURL(join(graph, 'src/kit/web.js')).href)});
const results = [];
for (const c of cases) results.push(await verifyAsync(c.body, c.header, c.options));
process.stdout.write(JSON.stringify({ probe, buffer: typeof Buffer, results }));
`);
    // The probe proves the refusal works: a module of the graph that imports node:crypto fails to load.
    writeFileSync(join(graph, 'probe.js'), "import 'node:crypto';\n");
    const output = await new Promise<string>((resolveOutput, reject) => {
      execFile(process.execPath, ['--import', join(dir, 'register.mjs'), join(dir, 'run.mjs')], { maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolveOutput(stdout)));
    });
    const { probe, buffer, results } = JSON.parse(output) as { probe: string; buffer: string; results: VerifyResult[] };
    expect(probe).toMatch(/refused to the portable graph: node:crypto/);
    expect(buffer).toBe('undefined');
    expect(results).toHaveLength(cases.length);
    const outcomes = new Map<string, number>();
    cases.forEach((c, i) => {
      const expected = verify(c.body, c.header, c.options);
      const actual = results[i]!;
      outcomes.set(expected.ok ? 'ok' : expected.reason, (outcomes.get(expected.ok ? 'ok' : expected.reason) ?? 0) + 1);
      // The guesses behind a mismatch cost extra HMACs: Web Crypto gives the general hint only.
      const comparable = (r: VerifyResult) => (!r.ok && r.reason === 'mismatch' ? { ...r, hints: r.hints.length > 0 } : r);
      if (JSON.stringify(comparable(actual)) !== JSON.stringify(comparable(expected))) {
        expect({ case: c, actual: comparable(actual) }).toEqual({ case: c, actual: comparable(expected) });
      }
    });
    // The cases reach every verdict, so agreement means something.
    expect([...outcomes.keys()].sort()).toEqual(['malformed', 'mismatch', 'missing', 'no_signatures', 'ok', 'timestamp_in_future', 'timestamp_too_old']);
    for (const count of outcomes.values()) expect(count).toBeGreaterThan(50);
  }, 120_000);
});

interface Case {
  body: Uint8Array | string;
  header: string | string[] | undefined;
  options: VerifyOptions & { secrets: string[] };
}

function toWire(c: Case) {
  return typeof c.body === 'string' ? c : { ...c, body: undefined, bodyHex: Buffer.from(c.body).toString('hex') };
}

const secretArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 24 }),
  fc.string({ minLength: 1, maxLength: 12, unit: 'binary' }),
  fc.constantFrom('whsec_a', 'whsec_a\n', ' whsec_a', 'sécret-ü-🔑'),
);

function verifyCase(): fc.Arbitrary<Case> {
  return fc
    .record({
      secrets: fc.array(secretArb, { minLength: 1, maxLength: 3 }),
      signer: fc.oneof(fc.nat(2), fc.constant(-1)),
      foreign: secretArb,
      body: fc.oneof(fc.uint8Array({ maxLength: 96 }), fc.string({ maxLength: 40, unit: 'binary' }), fc.json().map((j) => j)),
      bodyAsString: fc.boolean(),
      now: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
      fraction: fc.constantFrom(0, 0.25, 0.999),
      offset: fc.oneof(fc.integer({ min: -400, max: 400 }), fc.constantFrom(-301, -300, 300, 301)),
      tolerance: fc.constantFrom(undefined, 300, 1, 0.5, 1000),
      shape: fc.constantFrom('plain', 'plain', 'plain', 'upper', 'extra-v1', 'v0', 'padded', 'missing', 'array', 'no-v1', 'garbage', 'short-v1', 'space'),
      garbage: fc.string({ maxLength: 60 }),
      explain: fc.boolean(),
    })
    .map((r): Case => {
      const body = typeof r.body === 'string' && !r.bodyAsString ? Buffer.from(r.body, 'utf8') : r.body;
      const t = Math.max(0, r.now + r.offset);
      const secret = r.signer >= 0 ? r.secrets[r.signer % r.secrets.length]! : r.foreign;
      const signed = sign(secret, body, t);
      const v1 = signed.slice(signed.indexOf('v1=') + 3);
      const header = ((): Case['header'] => {
        switch (r.shape) {
          case 'plain': return signed;
          case 'upper': return `t=${t},v1=${v1.toUpperCase()}`;
          case 'extra-v1': return `t=${t},v1=${'0'.repeat(64)},v1=${v1},v0=abc`;
          case 'v0': return `t=${t},v0=${v1}`;
          case 'padded': return `t=00${t},v1=${v1}`;
          case 'missing': return undefined;
          case 'array': return [signed, signed];
          case 'no-v1': return `t=${t}`;
          case 'garbage': return r.garbage;
          case 'short-v1': return `t=${t},v1=${v1.slice(2)},v1=${v1}`;
          case 'space': return `t=${t}, v1=${v1}`;
          default: return signed;
        }
      })();
      const options: Case['options'] = { secrets: r.secrets, nowSeconds: r.now + r.fraction, explain: r.explain };
      if (r.tolerance !== undefined) options.toleranceSeconds = r.tolerance;
      return { body: body as Uint8Array | string, header, options };
    });
}
