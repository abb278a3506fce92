import { Argument, type Command } from 'commander';

const EXAMPLE = `
Examples:
  $ zonecron completion bash > ~/.zonecron-completion.bash
  and "source ~/.zonecron-completion.bash" in ~/.bashrc (or, at the cost of one
  zonecron start per shell, "source <(zonecron completion bash)").
  $ zonecron completion zsh > ~/.zsh/completions/_zonecron
  with ~/.zsh/completions on $fpath before compinit runs in ~/.zshrc.
  Both complete commands, subcommands, options and option values such as
  --gap shift|transition|skip, and file names where a file is expected.`;

/** The program a command belongs to: completion covers all of it, not one branch. */
function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

/**
 * `zonecron completion bash|zsh`: a completion script generated from the command tree.
 *
 * The tree is read when the script is printed, so every command registered in `main.ts`,
 * before or after this one, is in it.
 */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script for bash or zsh')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .addHelpText('after', EXAMPLE)
    .action(async (shell: 'bash' | 'zsh', _options: object, command: Command) => {
      const { bashCompletion, completionTree, zshCompletion } = await import(
        '../format/completion-script.ts'
      );
      const root = rootOf(command);
      const nodes = completionTree(root);
      const script =
        shell === 'bash' ? bashCompletion(nodes, root.name()) : zshCompletion(nodes, root.name());
      process.stdout.write(script);
    });
}
