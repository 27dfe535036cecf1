/**
 * What a shell can complete, read from the registered commands themselves (commander's own view of
 * what `--help` lists), so a flag added to a command is completed without touching the scripts.
 */
import { Help, type Command } from 'commander';

export interface CompletionOption {
  /** `--port`, and `-p` when it has a short form. */
  names: string[];
  description: string;
  /** It is followed by a value (`--port <n>`); an optional value (`--json [x]`) counts as none. */
  takesValue: boolean;
  /** The values it accepts, when it lists them (`.choices()`); else a value is completed as a file name. */
  choices: string[];
}

export interface CompletionNode {
  /** The command words from the root (`[]`, `['events']`, `['events', 'list']`). */
  path: string[];
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  options: CompletionOption[];
}

/** Every command of the program, the root first, each with its subcommands and options as `--help` shows them. */
export function completionTree(program: Command): CompletionNode[] {
  const help = new Help();
  const nodes: CompletionNode[] = [];
  const walk = (command: Command, path: string[]) => {
    const subcommands = help.visibleCommands(command).filter((sub) => sub.name() !== 'help');
    nodes.push({
      path,
      description: firstLine(command.description()),
      subcommands: subcommands.map((sub) => ({ name: sub.name(), description: firstLine(sub.description()) })),
      options: help.visibleOptions(command).map((option) => ({
        names: [option.long, option.short].filter((name): name is string => typeof name === 'string'),
        description: firstLine(option.description),
        takesValue: option.required,
        choices: option.argChoices ? [...option.argChoices] : [],
      })),
    });
    for (const sub of subcommands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
  return nodes;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
