/**
 * Shell completion scripts for bash and zsh, generated from a commander program's command
 * tree: every command a program registers, its subcommands, options and arguments, and the
 * choices of each, so a command added later completes without a change here.
 */
import type { Argument, Command, Option } from 'commander';

/** What may be typed as the value of an option or a positional argument. */
export type CompletionValue =
  | { readonly kind: 'choices'; readonly choices: readonly string[] }
  | { readonly kind: 'file' }
  | { readonly kind: 'dir' }
  | { readonly kind: 'any' };

/** An option as completion sees it: its flags, and its value when it takes one. */
export interface CompletionOption {
  /** Short and long flags, e.g. `['-n', '--count']`. */
  readonly flags: readonly string[];
  readonly summary: string;
  /** Absent for a flag that takes no value. */
  readonly value?: CompletionValue;
}

/** One command of the tree, with the words that may follow it. */
export interface CompletionNode {
  /** Subcommand names from the program down, e.g. `['dlq', 'list']`; `[]` for the program. */
  readonly path: readonly string[];
  readonly subcommands: readonly {
    readonly name: string;
    readonly aliases: readonly string[];
    readonly summary: string;
  }[];
  readonly options: readonly CompletionOption[];
  /** Positional arguments in order; `variadic` only on the last. */
  readonly arguments: readonly (CompletionValue & { readonly variadic: boolean })[];
}

const FILE_PLACEHOLDER = /^(file|path)$/i;
const DIR_PLACEHOLDER = /^(dir|directory)$/i;

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? '';
}

function completionValue(
  placeholder: string,
  choices: readonly string[] | undefined,
): CompletionValue {
  if (choices && choices.length > 0) return { kind: 'choices', choices };
  if (FILE_PLACEHOLDER.test(placeholder)) return { kind: 'file' };
  if (DIR_PLACEHOLDER.test(placeholder)) return { kind: 'dir' };
  return { kind: 'any' };
}

function optionOf(option: Option): CompletionOption {
  const flags = [option.short, option.long].filter((f): f is string => f !== undefined);
  const summary = firstLine(option.description);
  if (!option.required && !option.optional) return { flags, summary };
  const placeholder = /[<[]([^>\]]*)[>\]]/.exec(option.flags)?.[1] ?? '';
  return { flags, summary, value: completionValue(placeholder, option.argChoices) };
}

function argumentOf(argument: Argument) {
  return { ...completionValue(argument.name(), argument.argChoices), variadic: argument.variadic };
}

/**
 * Walks a program's visible commands and options, as its `--help` shows them.
 *
 * Hidden options stay out. The `help` command commander adds by itself completes the names
 * of its sibling commands.
 */
export function completionTree(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: readonly string[]) => {
    const help = command.createHelp();
    const subcommands = help.visibleCommands(command);
    nodes.push({
      path,
      subcommands: subcommands.map((sub) => ({
        name: sub.name(),
        aliases: sub.aliases(),
        summary: firstLine(help.subcommandDescription(sub)),
      })),
      options: help.visibleOptions(command).map(optionOf),
      arguments: command.registeredArguments.map(argumentOf),
    });
    for (const sub of subcommands) {
      if (command.commands.includes(sub)) {
        visit(sub, [...path, sub.name()]);
      } else {
        const siblings = command.commands.map((c) => c.name());
        nodes.push({
          path: [...path, sub.name()],
          subcommands: [],
          options: help.visibleOptions(sub).map(optionOf),
          arguments: [{ kind: 'choices', choices: siblings, variadic: false }],
        });
      }
    }
  };
  visit(program, []);
  return nodes;
}

/** Quotes a word for bash and zsh alike: single quotes, with `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The shell function's name: `_zonecron` for `zonecron`. */
function functionName(program: string): string {
  return `_${program.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** `case` patterns over `"$cmd/$word"` for each name of a node's subcommands. */
function walkCases(nodes: readonly CompletionNode[], zsh: boolean): string[] {
  const lines: string[] = [];
  for (const node of nodes) {
    for (const sub of node.subcommands) {
      const next = [...node.path, sub.name].join(' ');
      const patterns = [sub.name, ...sub.aliases].map((name) =>
        shellQuote(`${node.path.join(' ')}/${name}`),
      );
      lines.push(
        `      ${zsh ? '(' : ''}${patterns.join('|')}) cmd=${shellQuote(next)}; npos=0; continue ;;`,
      );
    }
  }
  return lines;
}

/** The options that take a value, as one `case` pattern over `"$cmd/$word"`. */
function valueOptionPattern(nodes: readonly CompletionNode[]): string | undefined {
  const patterns = nodes.flatMap((node) =>
    node.options
      .filter((o) => o.value)
      .flatMap((o) => o.flags.map((flag) => shellQuote(`${node.path.join(' ')}/${flag}`))),
  );
  return patterns.length > 0 ? patterns.join('|') : undefined;
}

/** What to offer for a value, in one shell's terms. */
interface ValueCompleters {
  words(words: readonly string[]): string;
  file: string;
  dir: string;
}

function completeValue(value: CompletionValue, shell: ValueCompleters): string | undefined {
  switch (value.kind) {
    case 'choices':
      return shell.words(value.choices);
    case 'file':
      return shell.file;
    case 'dir':
      return shell.dir;
    case 'any':
      return undefined;
  }
}

/** `case` arms completing option values, over `"$cmd/$opt"`. */
function optionValueCases(
  nodes: readonly CompletionNode[],
  shell: ValueCompleters,
  zsh: boolean,
): string[] {
  const lines: string[] = [];
  for (const node of nodes) {
    for (const option of node.options) {
      const action = option.value && completeValue(option.value, shell);
      if (!action) continue;
      const patterns = option.flags.map((flag) => shellQuote(`${node.path.join(' ')}/${flag}`));
      lines.push(`      ${zsh ? '(' : ''}${patterns.join('|')}) ${action} ;;`);
    }
  }
  return lines;
}

/** `case` arms completing positional arguments, over `"$cmd/$npos"`. */
function argumentCases(
  nodes: readonly CompletionNode[],
  shell: ValueCompleters,
  zsh: boolean,
): string[] {
  const lines: string[] = [];
  for (const node of nodes) {
    node.arguments.forEach((argument, index) => {
      const action = completeValue(argument, shell);
      if (!action) return;
      const at = `${node.path.join(' ')}/`;
      const pattern = argument.variadic ? `${shellQuote(at)}*` : shellQuote(`${at}${index}`);
      lines.push(`    ${zsh ? '(' : ''}${pattern}) ${action} ;;`);
    });
  }
  return lines;
}

/** The loop shared by both shells: which command the words so far name, and what is pending. */
function walkLoop(nodes: readonly CompletionNode[], zsh: boolean, first: number): string[] {
  const valueOptions = valueOptionPattern(nodes);
  const open = zsh ? '(' : '';
  return [
    `  for (( i = ${first}; i < ${zsh ? 'CURRENT' : 'COMP_CWORD'}; i++ )); do`,
    zsh ? `    word=\${words[i]}` : `    word=\${COMP_WORDS[i]}`,
    '    if [[ -n $opt ]]; then',
    // bash splits `--gap=shift` into `--gap`, `=`, `shift`.
    "      [[ $word == '=' ]] || opt=",
    '      continue',
    '    fi',
    '    case "$cmd/$word" in',
    ...walkCases(nodes, zsh),
    '    esac',
    '    case "$cmd/$word" in',
    ...(valueOptions ? [`      ${open}${valueOptions}) opt=$word ;;`] : []),
    `      ${open}*/-*) ;;`,
    `      ${open}*) npos=$(( npos + 1 )) ;;`,
    '    esac',
    '  done',
  ];
}

/** `case` arms listing a node's words (`name` or `name:summary` in zsh) by `"$cmd"`. */
function listCases(
  indent: string,
  nodes: readonly CompletionNode[],
  pick: (node: CompletionNode) => readonly { name: string; summary: string }[],
  emit: (items: readonly { name: string; summary: string }[]) => string,
  zsh: boolean,
): string[] {
  return nodes
    .filter((node) => pick(node).length > 0)
    .map(
      (node) =>
        `${indent}${zsh ? '(' : ''}${shellQuote(node.path.join(' '))}) ${emit(pick(node))} ;;`,
    );
}

const optionItems = (node: CompletionNode) =>
  node.options.flatMap((o) => o.flags.map((name) => ({ name, summary: o.summary })));

const commandItems = (node: CompletionNode) =>
  node.subcommands.map((s) => ({ name: s.name, summary: s.summary }));

/** Completers calling the helpers the bash script defines (`__zonecron_words`, …). */
function bashCompleters(fn: string): ValueCompleters {
  return {
    words: (words) => `_${fn}_words ${shellQuote(words.join(' '))}`,
    file: `_${fn}_files -f`,
    dir: `_${fn}_files -d`,
  };
}

/**
 * A bash completion script for the program, to `source` from `.bashrc`.
 *
 * Needs bash alone, not the bash-completion package; `compopt` (bash 4 and later, so that
 * directory names get their slash) is used where it exists.
 */
export function bashCompletion(nodes: readonly CompletionNode[], program = 'zonecron'): string {
  const fn = functionName(program);
  const bash = bashCompleters(fn);
  const words = (items: readonly { name: string }[]) =>
    `${bash.words(items.map((item) => item.name))}; return 0`;
  return [
    `# bash completion for ${program}, generated from its commands by \`${program} completion bash\`.`,
    `# Install: source <(${program} completion bash)`,
    `_${fn}_words() { COMPREPLY=($(compgen -W "$1" -- "$cur")); }`,
    `_${fn}_files() {`,
    "  local IFS=$'\\n'",
    '  COMPREPLY=($(compgen "$1" -- "$cur"))',
    '  compopt -o filenames 2>/dev/null',
    '}',
    `${fn}() {`,
    `  local cur=\${COMP_WORDS[COMP_CWORD]} cmd= opt= word i npos=0`,
    "  [[ $cur == '=' ]] && cur=",
    ...walkLoop(nodes, false, 1),
    '  if [[ -n $opt ]]; then',
    '    case "$cmd/$opt" in',
    ...optionValueCases(nodes, bash, false),
    '    esac',
    '    return 0',
    '  fi',
    '  if [[ $cur == -* ]]; then',
    '    case "$cmd" in',
    ...listCases('      ', nodes, optionItems, words, false),
    '    esac',
    '    return 0',
    '  fi',
    '  case "$cmd" in',
    ...listCases('    ', nodes, commandItems, words, false),
    '  esac',
    '  case "$cmd/$npos" in',
    ...argumentCases(nodes, bash, false),
    '  esac',
    '  return 0',
    '}',
    `complete -F ${fn} ${program}`,
    '',
  ].join('\n');
}

const ZSH: ValueCompleters = {
  words: (words) => `compadd -- ${words.map(shellQuote).join(' ')}`,
  file: '_files',
  dir: '_files -/',
};

/** `name:summary` for zsh's `_describe`, with colons in the name escaped. */
function describeItem(item: { name: string; summary: string }): string {
  return shellQuote(`${item.name.replaceAll(':', '\\:')}:${item.summary}`);
}

/**
 * A zsh completion script for the program: a file `_<program>` in a directory on `$fpath`,
 * or `source`d after `compinit`.
 */
export function zshCompletion(nodes: readonly CompletionNode[], program = 'zonecron'): string {
  const fn = functionName(program);
  const describe =
    (tag: string, noun: string) => (items: readonly { name: string; summary: string }[]) =>
      `items=(${items.map(describeItem).join(' ')}); _describe -t ${tag} ${noun} items; return`;
  return [
    `#compdef ${program}`,
    `# zsh completion for ${program}, generated from its commands by \`${program} completion zsh\`.`,
    `${fn}() {`,
    `  local cmd= opt= word cur=\${words[CURRENT]}`,
    '  local -i i npos=0',
    '  local -a items',
    ...walkLoop(nodes, true, 2),
    // zsh keeps `--gap=sh` as one word: complete the value after the `=`.
    '  if [[ -z $opt && $cur == -*=* ]]; then',
    `    opt=\${cur%%=*}`,
    "    compset -P '*='",
    '  fi',
    '  if [[ -n $opt ]]; then',
    '    case "$cmd/$opt" in',
    ...optionValueCases(nodes, ZSH, true),
    '    esac',
    '    return',
    '  fi',
    '  if [[ $cur == -* ]]; then',
    '    case "$cmd" in',
    ...listCases('      ', nodes, optionItems, describe('options', 'option'), true),
    '    esac',
    '    return',
    '  fi',
    '  case "$cmd" in',
    ...listCases('    ', nodes, commandItems, describe('commands', 'command'), true),
    '  esac',
    '  case "$cmd/$npos" in',
    ...argumentCases(nodes, ZSH, true),
    '  esac',
    '}',
    'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then',
    `  ${fn} "$@"`,
    'else',
    `  compdef ${fn} ${program}`,
    'fi',
    '',
  ].join('\n');
}
