// The command-line shell. It parses flags and calls the library; every command
// lives in ./commands and returns an exit code. Bad input exits 2 with one line.
// The flags and --help of each group of commands are wired in a module of their own
// (capture-, simulation-, live- and tool-commands.ts); the actions load the commands lazily.
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, UsageError } from './io.js';
import { LimitError } from '../core/engine/index.js';
import type { CliIO } from './io.js';
import { addAnalyzeCommand, addDecodeCommand } from './capture-commands.js';
import { addLiveCommands } from './live-commands.js';
import { addSimulationCommands } from './simulation-commands.js';
import { addToolCommands } from './tool-commands.js';
import { VERSION } from '../version.js';
import { flag } from './flags.js';

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successful exits; anything else is a usage error.
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return 0;
      return EXIT_USAGE;
    }
    if (error instanceof UsageError) {
      io.stderr(`bcsim: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof LimitError) {
      io.stderr(`bcsim: limit: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command('bcsim');
  program
    .description('Deterministic simulator and bug reproducer for the Bridge Commander 1.1 reliable-UDP transport')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      writeErr: (text) => io.stderr(text),
      outputError: (text, write) => write(`bcsim: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError(false);

  // In the order --help lists them.
  addDecodeCommand(program, io, setExit);
  addSimulationCommands(program, io, setExit);
  addAnalyzeCommand(program, io, setExit);
  addLiveCommands(program, io, setExit);
  addToolCommands(program, io, setExit);

  program
    .command('scenarios')
    .description('list the built-in scenarios and what each is for')
    .addOption(flag('scenarios', '--json', 'a JSON array'))
    .addHelpText(
      'after',
      '\nThe BC scenarios first, then the scheme scenarios (rtype-deaths, schemes-side-by-side), which\n' +
        '`bcsim compare <name>` runs; in --json a scheme scenario carries "scheme". Exit code 0.\n' +
        'Examples:\n  bcsim scenarios\n  bcsim scenarios --json\n',
    )
    .action(async (flags: { json?: boolean }) => {
      setExit((await import('./commands/scenarios.js')).scenariosCommand(flags, io));
    });

  // Subcommands inherit the same output routing and exit behaviour.
  for (const command of program.commands) {
    command.exitOverride().configureOutput(program.configureOutput());
  }
  return program;
}
