/**
 * What a shell can complete, read from the registered commands themselves (commander's own view of
 * what `--help` lists), so a flag added to a command is completed without touching the scripts.
 */
import { Help, Option, type Command } from 'commander';

// The values an option takes, for completion only: the command still checks a value itself (every
// problem at once, in its own words), which commander's .choices() would refuse first.
const offeredValues = new WeakMap<Option, readonly string[]>();

/** An option whose value is one of `values`: shells offer them after the flag. */
export function optionOfValues(flags: string, description: string, values: readonly string[], defaultValue?: string): Option {
  const option = new Option(flags, description);
  if (defaultValue !== undefined) option.default(defaultValue);
  offeredValues.set(option, values);
  return option;
}

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
  /** The values its first argument takes, when it lists them (`completion <shell>`). */
  argumentValues: Array<{ name: string; description: string }>;
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
      argumentValues: (command.registeredArguments[0]?.argChoices ?? []).map((name) => ({ name, description: firstLine(command.registeredArguments[0]!.description) })),
      options: help.visibleOptions(command).map((option) => ({
        names: [option.long, option.short].filter((name): name is string => typeof name === 'string'),
        description: firstLine(option.description),
        takesValue: option.required,
        choices: [...(option.argChoices ?? offeredValues.get(option) ?? [])],
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
