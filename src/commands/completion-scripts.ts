/**
 * The completion scripts of `hookrelay completion bash|zsh|fish`, written from the command tree
 * (completion-tree.ts). Each finds the command path the same way: the words before the cursor that
 * name a subcommand of the path so far, skipping options and the value after an option that takes
 * one; then it offers that path's subcommands, its options after a `-`, or an option's choices (else
 * file names) after an option that takes a value.
 */
import { shellQuote } from '../core/shell-command.js';
import type { CompletionNode } from './completion-tree.js';

export const COMPLETION_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

export function completionScript(shell: CompletionShell, tree: readonly CompletionNode[]): string {
  if (shell === 'bash') return bashScript(tree);
  if (shell === 'zsh') return zshScript(tree);
  return fishScript(tree);
}

const pathText = (node: CompletionNode) => node.path.join(' ');
const valueOptions = (node: CompletionNode) => node.options.filter((option) => option.takesValue).flatMap((option) => option.names.map((name) => ({ name, choices: option.choices })));

/** The case tables both bash and zsh read: a path's subcommands, its options, the options that take a value, their choices. */
function shCaseTables(tree: readonly CompletionNode[], prefix: string): string {
  const table = (name: string, rows: Array<[label: string, words: string[]]>) =>
    [`${name}() {`, '  case "$1" in', ...rows.filter(([, words]) => words.length > 0).map(([label, words]) => `    ${shellQuote(label)}) echo ${shellQuote(words.join(' '))} ;;`), '  esac', '}'].join('\n');
  return [
    table(`${prefix}_subcommands`, tree.map((node) => [pathText(node), node.subcommands.map((sub) => sub.name)])),
    table(`${prefix}_options`, tree.map((node) => [pathText(node), node.options.flatMap((option) => option.names)])),
    table(`${prefix}_value_options`, tree.map((node) => [pathText(node), valueOptions(node).map((option) => option.name)])),
    table(`${prefix}_choices`, tree.flatMap((node) => valueOptions(node).map((option): [string, string[]] => [`${pathText(node)}${node.path.length ? ' ' : ''}${option.name}`, option.choices]))),
    table(`${prefix}_arguments`, tree.map((node) => [pathText(node), node.argumentValues.map((value) => value.name)])),
    `${prefix}_has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }`,
    // The one walk both shells run: the words before the cursor (after the command) give the command
    // path; a flag that takes a value hides the word after it.
    `${prefix}_path() {
  local cmdpath= word skip=
  for word in "$@"; do
    if [[ -n $skip ]]; then
      skip=
    elif [[ $word == -* ]]; then
      ${prefix}_has "$(${prefix}_value_options "$cmdpath")" "$word" && skip=1
    elif ${prefix}_has "$(${prefix}_subcommands "$cmdpath")" "$word"; then
      cmdpath=\${cmdpath:+$cmdpath }$word
    fi
  done
  printf '%s' "$cmdpath"
}`,
  ].join('\n');
}

function bashScript(tree: readonly CompletionNode[]): string {
  return `# hookrelay completion for bash. Load it in this shell:  source <(hookrelay completion bash)
# or for every shell:  hookrelay completion bash > ~/.local/share/bash-completion/completions/hookrelay
${shCaseTables(tree, '_hookrelay')}
# One candidate a line, so a file name with a space or a glob character stays whole; only file names are
# completed as paths (a folder named like a command must not turn the command into a path).
_hookrelay_files() { compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$1"); }
_hookrelay_words() { mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2"); }
_hookrelay() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmdpath
  # --flag=value: bash splits the word at the = (COMP_WORDBREAKS); the flag is the word before it.
  if [[ $cur == = ]]; then
    cur=
  elif [[ $prev == = ]] && ((COMP_CWORD > 2)); then
    prev=\${COMP_WORDS[COMP_CWORD-2]}
  fi
  cmdpath=$(_hookrelay_path "\${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if ((COMP_CWORD > 1)) && [[ $prev == -* ]] && _hookrelay_has "$(_hookrelay_value_options "$cmdpath")" "$prev"; then
    local choices=$(_hookrelay_choices "\${cmdpath:+$cmdpath }$prev")
    if [[ -n $choices ]]; then _hookrelay_words "$choices" "$cur"; else _hookrelay_files "$cur"; fi
  elif [[ $cur == -* ]]; then
    _hookrelay_words "$(_hookrelay_options "$cmdpath")" "$cur"
  else
    local words="$(_hookrelay_subcommands "$cmdpath") $(_hookrelay_arguments "$cmdpath")"
    if [[ -n \${words// /} ]]; then _hookrelay_words "$words" "$cur"; else _hookrelay_files "$cur"; fi
  fi
  return 0
}
complete -F _hookrelay hookrelay
`;
}

function zshScript(tree: readonly CompletionNode[]): string {
  // _describe takes `name:description` items; a colon in a name would need escaping, and none has one.
  const described = (items: Array<{ name: string; description: string }>) => items.map((item) => shellQuote(`${item.name}:${item.description}`)).join(' ');
  const cases = (pick: (node: CompletionNode) => Array<{ name: string; description: string }>) =>
    tree
      .filter((node) => pick(node).length > 0)
      .map((node) => `    ${shellQuote(pathText(node))}) items=(${described(pick(node))}) ;;`)
      .join('\n');
  return `#compdef hookrelay
# hookrelay completion for zsh. Load it in this shell:  source <(hookrelay completion zsh)
# or for every shell: write it as _hookrelay into a folder of your $fpath, then run compinit.
${shCaseTables(tree, '_hookrelay')}
_hookrelay_commands() {
  local -a items
  case "$1" in
${cases((node) => [...node.subcommands, ...node.argumentValues])}
  esac
  (( \${#items} )) && _describe -t commands command items
}
_hookrelay_option_list() {
  local -a items
  case "$1" in
${cases((node) => node.options.flatMap((option) => option.names.map((name) => ({ name, description: option.description }))))}
  esac
  (( \${#items} )) && _describe -t options option items
}
_hookrelay() {
  local cmdpath cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  cmdpath=$(_hookrelay_path "\${(@)words[2,CURRENT-1]}")
  if ((CURRENT > 2)) && [[ $prev == -* ]] && _hookrelay_has "$(_hookrelay_value_options "$cmdpath")" "$prev"; then
    local -a choices=(\${=$(_hookrelay_choices "\${cmdpath:+$cmdpath }$prev")})
    if (( \${#choices} )); then compadd -a choices; else _files; fi
  elif [[ $cur == -* ]]; then
    _hookrelay_option_list "$cmdpath"
  else
    _hookrelay_commands "$cmdpath" || _files
  fi
}
if [[ $funcstack[1] == _hookrelay ]]; then _hookrelay "$@"; else compdef _hookrelay hookrelay; fi
`;
}

function fishScript(tree: readonly CompletionNode[]): string {
  const q = (text: string) => `'${text.replace(/[\\']/g, '\\$&')}'`;
  const lines: string[] = [];
  for (const node of tree) {
    const when = `-n ${q(`__hookrelay_at ${q(pathText(node))}`)}`;
    for (const sub of [...node.subcommands, ...node.argumentValues]) lines.push(`complete -c hookrelay ${when} -f -a ${q(sub.name)} -d ${q(sub.description)}`);
    for (const option of node.options) {
      const names = option.names.map((name) => (name.startsWith('--') ? `-l ${q(name.slice(2))}` : `-s ${q(name.slice(1))}`)).join(' ');
      const value = !option.takesValue ? '' : option.choices.length > 0 ? ` -x -a ${q(option.choices.join(' '))}` : ' -r -F';
      lines.push(`complete -c hookrelay ${when} ${names}${value} -d ${q(option.description)}`);
    }
  }
  const subcommandCases = tree
    .filter((node) => node.subcommands.length > 0)
    .map((node) => `    case ${q(pathText(node))}\n        printf '%s\\n' ${node.subcommands.map((sub) => q(sub.name)).join(' ')}`)
    .join('\n');
  const valueOptionCases = tree
    .filter((node) => valueOptions(node).length > 0)
    .map((node) => `    case ${q(pathText(node))}\n        printf '%s\\n' ${valueOptions(node).map((option) => q(option.name)).join(' ')}`)
    .join('\n');
  return `# hookrelay completion for fish. Load it in this shell:  hookrelay completion fish | source
# or for every shell:  hookrelay completion fish > ~/.config/fish/completions/hookrelay.fish
function __hookrelay_subcommands
    switch "$argv[1]"
${subcommandCases}
    end
end
function __hookrelay_value_options
    switch "$argv[1]"
${valueOptionCases}
    end
end
# True when the words before the cursor name exactly this command path.
function __hookrelay_at
    set -l cmdpath ''
    set -l skip 0
    set -l words (commandline -opc)
    set -e words[1]
    for word in $words
        if test $skip = 1
            set skip 0
        else if string match -q -- '-*' $word
            contains -- $word (__hookrelay_value_options "$cmdpath"); and set skip 1
        else if contains -- $word (__hookrelay_subcommands "$cmdpath")
            set cmdpath (string trim -- "$cmdpath $word")
        end
    end
    test "$cmdpath" = "$argv[1]"
end
complete -c hookrelay -e
${lines.join('\n')}
`;
}
