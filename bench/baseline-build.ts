/**
 * hookrelay's CLI as an earlier commit built it, for a same-run "no slower than before" ratio: the
 * commit is checked out beside the tree (a detached `git worktree` in bench/.build/baseline-REF), with
 * this tree's node_modules linked in (the dependencies the ratio is not about), and built as
 * `npm run build` builds the CLI (tsc, then the bundle; the console's page is not needed with
 * --no-console). Built once per commit; the worktree is kept for the next run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.js';

function run(cmd: string, args: string[], cwd: string): void {
  const done = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}: ${done.stderr.slice(-2000)}`);
}

/** The path of REF's built CLI (dist/bin/cli.js of its worktree), built if it is not there yet. */
export function baselineCli(ref: string): string {
  const sha = spawnSync('git', ['rev-parse', '--short=12', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' });
  if (sha.status !== 0) throw new Error(`BENCH_BASELINE_REF ${JSON.stringify(ref)} is not a commit of this repository`);
  const dir = join(ROOT, 'bench', '.build', `baseline-${sha.stdout.trim()}`);
  const cli = join(dir, 'dist', 'bin', 'cli.js');
  if (existsSync(cli)) return cli;
  if (!existsSync(dir)) run('git', ['worktree', 'add', '--detach', '--force', dir, sha.stdout.trim()], ROOT);
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  run('npx', ['tsc', '-p', 'tsconfig.build.json'], dir);
  run('node', ['scripts/bundle-cli.mjs'], dir);
  return cli;
}
