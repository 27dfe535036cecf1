/** `hookrelay completion SHELL`: a completion script for bash, zsh or fish, of every command and flag. */
import { Argument, type Command } from 'commander';
import { completionScript, COMPLETION_SHELLS, type CompletionShell } from './completion-scripts.js';
import { completionTree } from './completion-tree.js';

/** `wholeProgram`: the program with every command registered (a run registers only the one it names). */
export function registerCompletionCommand(program: Command, wholeProgram: () => Promise<Command>): void {
  program
    .command('completion')
    .description('print a shell completion script of every command and flag (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(COMPLETION_SHELLS))
    .addHelpText(
      'after',
      `
Load it in the shell you are in:
  source <(hookrelay completion bash)      bash
  source <(hookrelay completion zsh)       zsh (after compinit)
  hookrelay completion fish | source       fish

Or for every new shell:
  hookrelay completion bash > ~/.local/share/bash-completion/completions/hookrelay
  hookrelay completion zsh > "\${fpath[1]}/_hookrelay"
  hookrelay completion fish > ~/.config/fish/completions/hookrelay.fish`,
    )
    .action(async (shell: CompletionShell) => {
      process.stdout.write(completionScript(shell, completionTree(await wholeProgram())));
    });
}
