// The commands over many runs: sweep and sweep-merge (grids of seeded runs), swarm (random runs
// against the invariants) and shrink (a failing run made small). Each action loads its command module on use.
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import type { ShrinkFlags } from './commands/shrink.js';
import type { SwarmFlags } from './commands/swarm.js';
import type { SweepFlags, SweepMergeFlags } from './commands/sweep.js';
import { addFlags } from './flags.js';

export function addToolCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const sweepCommand = program
    .command('sweep')
    .description('run a grid of seeded runs (modes × --vary values × seeds) on worker threads, one JSON line per run')
    .argument('<scenario>', 'a built-in scenario name or a path to a scenario JSON file');
  addFlags(sweepCommand, 'sweep', {
    '--seeds': "default: the scenario's seed",
    '--seed': 'the one seed, the same as --seeds N',
    '--vary': 'path=v1,v2,... or path=lo..hi:step, the path as --set takes it (the grid is their product)',
    '--mode': "one mode for every run; default: the scenario's mode",
    '--modes': 'e.g. --modes stock,fixed',
    '--duration': "of every run, e.g. 30s, 10m; default: the scenario's duration",
    '--loss': "in every run, replacing the scenario's loss models",
    '--set': 'in every run',
    '--switch': 'in every run',
    '--jobs': 'default: one per core (1 runs in this process)',
    '--out':
      'the JSON lines, when the sweep ends; -: stdout; none: stdout into a pipe or file, nowhere on a terminal or with --html',
    '--json': 'the JSON lines on stdout (the table on stderr), on a terminal or with --html too',
    '--shard': '(merge the shards with sweep-merge)',
    '--metrics': 'default peers.server.ackOutbox.max,peers.client.ackOutbox.max,delivery.reliableLost',
    '--html': 'the summary, with tables, and charts when one numeric parameter is varied',
  });
  sweepCommand
    .addHelpText(
      'after',
      '\nThe grid is modes × the values of each --vary (in the order given, the last changing fastest) × seeds, seeds\n' +
        'innermost; index = its position, the same on every machine. Each run is one JSON line, in index order whatever\n' +
        'order runs finish in: {index, grid, runs, scenario, mode, seed, vary, traceHash, simulatedSeconds, figures,\n' +
        'verdict}. figures holds the key summary figures nested as in the summary (delivery.reliableLost,\n' +
        "peers.server.ackOutbox.max, ...); verdict is {passed, failed: [paths]} from the scenario's expect block for the\n" +
        'mode, or null; verdict.notApplicable lists the assertions a run that ended inside its phase plan cannot judge\n' +
        '(bcsim check --help). No wall times: the same command writes the same bytes, with any --jobs. At the end, a table of\n' +
        'min / median / max over the seeds per mode and value.\n' +
        'Where output goes: with --out FILE the lines go to FILE and the table to stdout. With --json or --out -, the\n' +
        'lines go to stdout and the table to stderr. Otherwise the lines go to stdout only into a pipe or file without\n' +
        '--html (as scripts read them); on a terminal, or with --html, stdout gets the table and no lines.\n' +
        'Exit codes: 0 every verdict passed (or none), 1 a run failed its expect block, 2 bad input, 130 interrupted\n' +
        '(nothing written).\n' +
        'Examples:\n  bcsim sweep lossy-link --modes stock,fixed --seeds 1..20 --duration 2m --out /tmp/lossy.jsonl\n' +
        "  bcsim sweep lossy-link --vary 'traffic.phases[1].reliablePerSecond=10..60:10' --seeds 1..5 --duration 2m --html /tmp/sweep.html\n" +
        '  bcsim sweep lossy-link --vary link.both.latencyMs=20,80,200 --mode fixed --seeds 1..100 --duration 2m --shard 2/4 --out shard-2.jsonl\n' +
        '  bcsim sweep lossy-link --seeds 1..3 --duration 10s --html /tmp/sweep.html --json | head -2\n',
    )
    .action(async (ref: string, flags: SweepFlags) => {
      setExit(await (await import('./commands/sweep.js')).sweepCommand(ref, flags, io));
    });

  const sweepMergeCommand = program
    .command('sweep-merge')
    .description('merge sweep shards (--shard i/n) into the file one machine would have written')
    .argument('<files...>', 'the JSON-lines files of the shards, in any order');
  addFlags(sweepMergeCommand, 'sweep-merge', {
    '--out': 'the merged lines; - or none: stdout',
  });
  sweepMergeCommand
    .addHelpText(
      'after',
      '\nThe lines are put back in index order. Refused (exit 2, one line naming the file and line): a line that is not a\n' +
        'sweep result, lines of a different sweep (another grid), a run given twice, or a run missing from every file.\n' +
        'Examples:\n  bcsim sweep-merge shard-*.jsonl --out results.jsonl\n',
    )
    .action(async (files: string[], flags: SweepMergeFlags) => {
      setExit((await import('./commands/sweep.js')).sweepMergeCommand(files, flags, io));
    });

  const swarmCommand = program
    .command('swarm')
    .description(
      'seeded random runs (links, faults, traffic) checked against the invariants; stops at the first failure and prints its reproduction',
    );
  addFlags(swarmCommand, 'swarm', {
    '--runs': '(default 100)',
    '--seed': 'the same seed generates the same runs (default 9062024, the CI swarm)',
    '--index': '(what a printed `swarm:` line does)',
    '--mode': 'fixed (default: the fixed-mode promise, bounded queues) or stock (ledger, faults fired, no throw)',
    '--switch': 'a top-level one, in every run, e.g. --switch closePolicy=immediate',
    '--all': null,
    '--json': 'one bcsim.swarm/1 JSON object',
  });
  swarmCommand
    .addHelpText(
      'after',
      '\nEach run draws its own scenario: rates, duration, per-direction loss (Bernoulli, bursts), duplication, jitter and\n' +
        'reordering, bandwidth caps, slots, outages shorter and longer than the peer timeout, drop rules, disconnects and\n' +
        'give-up policies (one client). Checked: the delivery ledger (nothing lost unless a connection ended, nothing\n' +
        'duplicated or out of order); in fixed mode, every end graceful (losing nothing) or forced by the link (the wire\n' +
        'shows every copy or ACK of a message lost for its life), liveness after a quiet tail and no dead-zone ACK-outbox\n' +
        'entry; every configured fault fired (one the link pre-empted by ending the connection is listed as not exercised),\n' +
        'and no run throws. A failure prints `repro:` (bcsim run …), `swarm:` (this run alone) and `shrink:`.\n' +
        'Progress on stderr when it is a terminal. Exit codes: 0 no failure, 1 a failure, 2 bad flags.\n' +
        'Examples:\n  bcsim swarm --runs 100\n  bcsim swarm --runs 20 --seed 7 --all --json\n' +
        '  bcsim swarm --runs 100 --switch closePolicy=immediate      (exits 1: what the swarm says without the drain remedy)\n' +
        '  bcsim swarm --seed 9062024 --index 133 --switch plantedBug=no-duplicate-ack      (exits 1: the planted bug breaks this run)\n',
    )
    .action(async (flags: SwarmFlags) => {
      setExit((await import('./commands/swarm.js')).swarmCliCommand(flags, io));
    });

  const shrinkCommand = program
    .command('shrink')
    .description(
      'shrink a failing swarm run to the smallest scenario that fails the same invariant on the same message',
    )
    .argument(
      '[repro]',
      'the line swarm printed: "bcsim swarm --seed G --index I …" or "bcsim run <scenario> --mode M --seed N --set …"',
    );
  addFlags(shrinkCommand, 'shrink', {
    '--file': 'the repro line',
    '--out':
      'the shrunk scenario; FILE.trace and FILE.pcapng go beside it; default shrunk-swarm-G-I.json (a swarm line) or shrunk-<scenario>-seed-N.json (a run line) in the working directory',
    '--budget': '(default 500)',
  });
  shrinkCommand
    .addHelpText(
      'after',
      '\nThe run is re-run with every random link decision recorded as an explicit fault list (link.<dir>.faults:\n' +
        '[{"at":"12.3s","datagram":57,"action":"drop"|"duplicate"|"delay","delayMs":…}]); the list alone must replay it\n' +
        '(same trace hash, same failure). Then, round after round until nothing shrinks or the budget is spent: bisect the\n' +
        'duration, switch off whole directions and fault classes, ddmin over the remaining faults, shrink the traffic per\n' +
        'phase (remove, halve duration or reliable rate), simplify values. A candidate counts only if it fails the same\n' +
        'invariant on the same message (kind, sending side, category, seq). Exit codes: 0 shrunk, 1 the run does not\n' +
        'fail (or its replay differs), 2 bad input.\n' +
        'Examples:\n' +
        "  bcsim shrink 'bcsim swarm --seed 9062024 --index 133 --mode fixed --switch plantedBug=no-duplicate-ack' --out /tmp/shrunk.json\n" +
        '  bcsim shrink --file repro.txt --out /tmp/shrunk.json --budget 200\n',
    )
    .action(async (repro: string | undefined, flags: ShrinkFlags) => {
      setExit((await import('./commands/shrink.js')).shrinkCommand(repro, flags, io));
    });
}
