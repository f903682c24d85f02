// The commands that run simulated scenarios: run, compare, trace, reproduce and check.
// Only their flags and --help live here; each action loads its command module on use.
import { Option } from 'commander';
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import type { CheckFlags } from './commands/check.js';
import type { CompareFlags } from './commands/compare-flags.js';
import type { ReproduceFlags } from './commands/reproduce.js';
import type { RunFlags } from './commands/run.js';
import type { TraceFlags } from './commands/trace.js';
import { renamedFlag } from './deprecated.js';
import { addFlags } from './flags.js';
import { CLIENTS_HELP, PCAP_HELP, REPRODUCE_RTYPE_HELP, SCHEME_COMPARE_HELP, SWITCHES_HELP } from './help-texts.js';

export function addSimulationCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const runCommand = program
    .command('run')
    .description('run one scenario in one mode and summarise it')
    .argument('<scenario>', 'a built-in scenario name (see `bcsim scenarios`) or a path to a scenario JSON file');
  addFlags(runCommand, 'run', {
    '--mode': "e.g. stock+ackRefresh=reset-count; default: the scenario's mode",
    '--seed': "default: the scenario's seed",
    '--duration': "e.g. 30s, 10m, 4h; default: the scenario's duration",
    '--loss': "replacing the scenario's loss models",
    '--set': 'e.g. --set traffic.phases[1].duration=5m',
    '--switch': 'e.g. --switch ackSendLimit=5 or --switch keepalive.reliable=true',
    '--json': 'one bcsim.summary/1 JSON object',
    '--check-determinism': null,
    '--pcap': 'the run, to FILE (see below)',
    '--pcap-plaintext': null,
  });
  runCommand
    .addHelpText(
      'after',
      `\n${SWITCHES_HELP}\n` +
        `\n${CLIENTS_HELP}\n` +
        `\n${PCAP_HELP}\n` +
        '\nExamples:\n  bcsim run fragment-ack-bug\n  bcsim run fragment-ack-bug --mode fixed --loss 0.2 --json\n  bcsim run scenarios/my.json --set link.clientToServer.latencyMs=40\n' +
        '  bcsim run valentines --set clients=5 --set link.clients.2.both.loss=0.1\n' +
        '  bcsim run fragment-ack-bug --loss 0.2 --pcap /tmp/fragment-ack.pcapng\n' +
        `  bcsim run lossy-link --set 'mode={"preset":"fixed","retransmit":{"retryLimit":2}}' --json\n`,
    )
    .action(async (ref: string, flags: RunFlags) => {
      setExit(await (await import('./commands/run.js')).runCommand(ref, flags, io));
    });

  const compareCommand = program
    .command('compare')
    .description(
      'run a scenario in stock and fixed mode side by side and write reports (the main job); a scheme scenario runs its own columns',
    )
    .argument('<scenario>', 'a built-in scenario name (BC or scheme) or a path to a scenario JSON file');
  addFlags(compareCommand, 'compare', {
    '--duration': "e.g. 30m or 4h; default: the scenario's duration",
    '--seed': "default: the scenario's seed",
    '--loss': "in every column, replacing the scenario's loss models",
    '--out-dir': 'default: reports/<scenario> (see below)',
    '--causes': null,
    '--sensitivity': '(4 more runs, beside the columns), and name the stock verdicts that flip',
    '--config':
      'the first item may be a mode as --mode takes it (stock, fixed, stock+switch=value), the others a switch (ackSendLimit=5) or a scenario edit (link.both.loss=0.1); 2 to 8 columns',
    '--a': null,
    '--b': null,
    '--switch': 'in every column',
    '--set': 'in every column',
    '--fail-on':
      "'leak', or '[LABEL:]PATH OP N' such as 'delivery.reliableLost>0' (an unknown LABEL or PATH is refused before the runs)",
    '--json': 'the summary.json document instead of the table',
    '--wide': 'every column label at the head of the table and each line whole',
    '--pcap': 'one per column, the label before the extension (out.pcapng -> out.stock.pcapng, out.fixed.pcapng)',
    '--pcap-plaintext': null,
    '--jobs':
      'the columns run on N threads; default one per core (up to the columns) when each column simulates 30 min or more, else 1. The output is the same either way',
  });
  compareCommand
    .addOption(
      new Option('--mode <preset>', 'refused with a pointer to --config: the columns are the modes').hideHelp(),
    )
    .addOption(new Option('--out <dir>', 'the old spelling of --out-dir').hideHelp())
    .addHelpText(
      'after',
      '\nWrites summary.json, timeseries.csv, report.md and report.html (atomically) into --out-dir. The\n' +
        'default --out-dir is reports/<scenario> only for the built-in defaults: with any --set, --switch, --config, --causes,\n' +
        '--sensitivity, --duration or --seed it is reports/experiments/<scenario>-<id>, so an experiment never\n' +
        'overwrites the committed reports (give --out-dir reports/<scenario> to do that on purpose). After the table,\n' +
        'one verdict line per metric group compares every column with the first; the last says what the stock\n' +
        'verdicts rest on. With --sensitivity the stock column also runs under each reading of similar rank (the\n' +
        'readings `bcsim reproduce ack-outbox` ranks close to the chosen one), and that line and the report name the\n' +
        'verdicts that flip, with the figures; it costs 4 more runs, so it is opt-in.\n' +
        'The text fits 120 columns: long lines wrap, and when the column labels would not fit (--causes) the\n' +
        'columns are lettered A, B, … with the labels in a legend under the table; --wide keeps them at the head.\n' +
        'Examples:\n  bcsim compare long-session\n  bcsim compare heavy-combat --duration 10m --causes --out-dir /tmp/heavy\n' +
        '  bcsim compare lobby-idle --sensitivity --out-dir /tmp/lobby\n' +
        "  bcsim compare valentines --duration 10m --a 'A:stock' --b 'B:stock,ackRefresh=reset-count'\n" +
        "  bcsim compare lossy-link --config 'stock:stock' --config 'fixed:fixed' --config 'fixed-w64:fixed,sendWindow=64' --fail-on 'fixed:delivery.reliableLost>0'\n" +
        '  bcsim compare fragment-ack-bug --pcap /tmp/fa.pcapng      (writes /tmp/fa.stock.pcapng and /tmp/fa.fixed.pcapng)\n' +
        `\n${PCAP_HELP}\n` +
        '  With compare, --pcap FILE writes one capture per column, the column label (: becomes -) before the\n' +
        '  extension; all of them appear together, after every run has finished, or none does.\n' +
        `\n${SCHEME_COMPARE_HELP}\n`,
    )
    .action(async (ref: string, flags: CompareFlags) => {
      const { outDir, ...rest } = flags;
      const out = renamedFlag(io, 'compare', { flag: '--out', value: flags.out }, { flag: '--out-dir', value: outDir });
      setExit(await (await import('./commands/compare.js')).compareCommand(ref, { ...rest, out }, io));
    });

  const traceCommand = program
    .command('trace')
    .description('print the annotated wire trace of a run: every datagram, drop, ACK verdict and duplicate')
    .argument('<scenario>', 'a built-in scenario name or a path to a scenario JSON file');
  addFlags(traceCommand, 'trace', {
    '--mode': "default: the scenario's mode",
    '--seed': "default: the scenario's seed",
    '--from': { detail: 'e.g. 10s', default: '0' },
    '--until': "e.g. 20s; default: the run's duration",
    '--duration': "of the run, e.g. 10m; default: the scenario's duration",
    '--loss': "replacing the scenario's loss models",
    '--peer': '(its sends, and the verdicts at it)',
    '--client': "(k = 1..clients, the scenario's order), both ends",
    '--slot': '(2, 3, ... in connect order), from its first connect attempt',
    '--filter': 'seq=2, type=ack, fragment, frag=1, retransmit, deadZone, event=drop, !reliable',
    '--set': null,
    '--switch': 'e.g. --switch messageLifetime=session',
    '--json': 'JSON Lines, one object per datagram or event',
    '--bytes':
      'none, short (first 16, then …), fit (as many as keep the line within 120 columns, then … +N B: the N bytes cut) or full; default: fit, terminal or not (full with --json)',
    '--pcap': 'the run, every datagram up to --until, whatever --from/--filter/--client show',
    '--pcap-plaintext': null,
  });
  traceCommand
    .addHelpText(
      'after',
      '\nMarks: [RETRANSMIT #n] re-sent message, [DEAD-ZONE ACK, pass 2] ACK sent by the gated pass 2,\n' +
        'DROP(cause) link drop, LINK-DUP duplicated datagram, DUPLICATE reliable message seen before,\n' +
        'ack ...: MATCHED / no match (and why) at the peer that receives the ACK.\n' +
        "The client's connect request uses type byte 0x03, ConnectAck's, and is shown as connect (type 0x03 as captured).\n" +
        "Text cuts each datagram's bytes so its line fits 120 columns, on a terminal or not (… +N B: N bytes cut; a line\n" +
        'whose messages alone are wider keeps them and shows only the count); --bytes full keeps every byte.\n' +
        'With --json, --bytes none drops "hex" and short cuts it to 16 bytes with "hexTruncated": true; the default is full.\n' +
        'The run stops as soon as the reader of stdout goes away (| head).\n' +
        'With several clients the direction names the connection by the slot the server gave it: C3>S, S>C3, at C3\n' +
        "(its client end), at S3 (the server's end). Before the server accepts it, it has no slot and is named by\n" +
        'client number, lowercase: c2>S, at c2. --json lines carry "client" and "slot" (null until accepted).\n' +
        'Examples:\n  bcsim trace fragment-ack-bug --until 20s\n  bcsim trace fragment-ack-bug --filter seq=2,fragment --peer client\n' +
        '  bcsim trace fragment-ack-bug --until 20s --bytes none\n  bcsim trace long-session | head -50\n' +
        '  bcsim trace fragment-ack-bug --until 20s --bytes full > /tmp/fa.trace\n' +
        '  bcsim trace valentines --until 20s --slot 3\n' +
        '  bcsim trace fragment-ack-bug --until 60s --pcap /tmp/fa.pcapng\n' +
        `\n${PCAP_HELP}\n` +
        '  With trace, the capture holds the whole run up to --until, and with --pcap the run goes on to its end\n' +
        '  when the reader of stdout goes away, so the capture is complete.\n',
    )
    .action(async (ref: string, flags: TraceFlags) => {
      setExit(await (await import('./commands/trace.js')).traceCommand(ref, flags, io));
    });

  const reproduceCommand = program
    .command('reproduce')
    .description(
      'measure the model against the observed bugs: fragment-ack (cause by cause), ack-outbox, or the R-Type defects (rtype)',
    )
    .argument('<target>', 'fragment-ack, ack-outbox or rtype');
  addFlags(reproduceCommand, 'reproduce', {
    '--seed': 'for the runs',
    '--loss': { detail: 'fragment-ack: for the lossy rerun of every cause; rtype: on every link', default: '0.2' },
    '--duration': 'rtype: of each run (default 60s, at least 10s)',
    '--json': 'one JSON object',
    '--wide': 'fragment-ack: full column titles and paragraphs on one line',
  });
  reproduceCommand
    .addHelpText(
      'after',
      '\nfragment-ack runs fragment-ack-bug on the stock preset once per candidate cause and once\n' +
        'with no fragment ever re-sent (none), on a clean and a lossy link; checks each\n' +
        'against the observed signature and weighs the evidence for and against it (--json: evidence, score,\n' +
        'best, similar). Exit 1 if the stock cause (matcher-rejects-fragments) is no longer ranked first.\n' +
        'The text fits 120 columns: numbered criteria and lettered evidence, their titles in a legend under each\n' +
        'table, every measured figure in the cells; --wide prints the tables with their full titles instead.\n' +
        'Re-sends are expected until the run ends or the message lifetime does (peer-timeout: 45 s).\n' +
        'ack-outbox runs 29 named readings of the stock model through five experiments each and scores them\n' +
        'against 32 observations (the ACK-outbox and the join timeline), each with its tolerance, source and\n' +
        'kind of evidence: captured bytes rank above measured figures above inferences. --json has\n' +
        '`hypotheses` (name, switches, one {value, expected, matches} per criterion, score), `best`,\n' +
        '`contradictions` and\n' +
        '`alternatives` (the readings of similar rank). Then it sweeps reliable rates at 95 and 33 ms updates\n' +
        'for both peers (predictions: no session at these rates was measured) and states the capacity\n' +
        'relation: an outbox runs away once game bytes + 9 x 4 ACK bytes per reliable message exceed 510 B\n' +
        'per update. Exit 1 if the reading the stock preset runs (calibrated) is no longer ranked first.\n' +
        'A reading marked † takes a fact the spec does not state: it is ranked, but the preset never follows it.\n' +
        'It takes about 30 s: progress goes to stderr (one line per reading and swept rate when not a terminal);\n' +
        "the text fits 120 columns (marks and rank per reading, the stock reading's values), --json has every value.\n" +
        `\n${REPRODUCE_RTYPE_HELP}\n`,
    )
    .action(async (target: string, flags: ReproduceFlags) => {
      setExit((await import('./commands/reproduce.js')).reproduceCommand(target, flags, io));
    });

  const checkCommand = program
    .command('check')
    .description("evaluate scenarios' expect blocks: exit 0 if every assertion holds, 1 if not, 2 on a bad path")
    .argument('<scenario...>', 'built-in scenario names or paths to scenario JSON files');
  addFlags(checkCommand, 'check', {
    '--mode': "only this mode's expectations are checked; +switch=value also sets switches",
    '--seed': "for every run; default: each scenario's seed",
    '--seeds': 'the last lines name the first failing one',
    '--duration': "of every run, e.g. 30s, 10m; default: each scenario's duration",
    '--loss': "in every run, replacing the scenarios' loss models",
    '--set': 'in every scenario given',
    '--switch': 'in every scenario given',
    '--junit': 'the results, for CI systems',
    '--check-determinism': null,
    '--json': 'one JSON object',
  });
  checkCommand
    .addHelpText(
      'after',
      '\nAn expect block: { "fixed": { "peers.*.ackOutbox.max": { "lte": 20 }, "delivery.reliableLost": { "eq": 0 } } }\n' +
        'Ops: eq, lt, lte, gt, gte. "*" in a path means every peer. On failure the exact command that reproduces\n' +
        'the run is printed. With --seeds every seed runs, in order, failures included; exit 1 if any failed, and\n' +
        'the last lines name the first failing seed and a `bcsim check … --seed N` command that reproduces it.\n' +
        'A --duration that ends a run before its phase plan does is said once on stderr (settings.phasePlanCut has the\n' +
        'phases); then an end-of-run value (.final) and a lower bound not yet reached are not applicable: shown with –,\n' +
        'never a pass, never a failure (JUnit skipped). Upper bounds are judged on the part that ran.\n' +
        'Examples:\n  bcsim check fragment-ack-bug long-session --check-determinism --junit junit.xml\n' +
        '  bcsim check scenarios/examples/my-fix.json --seeds 1..20 --duration 1m --set link.both.loss=0.1\n',
    )
    .action(async (refs: string[], flags: CheckFlags) => {
      setExit((await import('./commands/check.js')).checkCommand(refs, flags, io));
    });
}
