// The command-line shell. It parses flags and calls the library; every command
// lives in ./commands and returns an exit code. Bad input exits 2 with one line.
import { Command, CommanderError, Option } from 'commander';
import { EXIT_USAGE, UsageError } from './io.js';
import { LimitError } from '../core/engine/index.js';
import type { CliIO } from './io.js';
import type { AnalyzeFlags } from './commands/analyze.js';
import type { RunFlags } from './commands/run.js';
import type { CheckFlags } from './commands/check.js';
import type { ReproduceFlags } from './commands/reproduce.js';
import type { TraceFlags } from './commands/trace.js';
import type { CompareFlags } from './commands/compare-flags.js';
import { collect } from './options.js';
import {
  ANALYZE_HELP,
  CLIENTS_HELP,
  CONFORM_HELP,
  DECODE_PCAP_HELP,
  PCAP_HELP,
  WIRE_FORMS_HELP,
  PEER_HELP,
  REPRODUCE_RTYPE_HELP,
  SCHEME_COMPARE_HELP,
  SWITCHES_HELP,
} from './help-texts.js';
import type { PeerFlags } from './commands/peer.js';
import type { ConformFlags } from './commands/conform.js';
import type { SweepFlags, SweepMergeFlags } from './commands/sweep.js';
import type { ProxyFlags } from './commands/proxy.js';
import type { SwarmFlags } from './commands/swarm.js';
import type { ShrinkFlags } from './commands/shrink.js';
import { VERSION } from '../version.js';

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

  program
    .command('decode')
    .description(
      'decode one datagram given as hex (arguments, a file or stdin) and annotate every field, or every BC datagram of a capture (--pcap)',
    )
    .argument('[hex...]', 'datagram bytes as hex, with or without spaces ("01 02 03" or 010203); - reads stdin')
    .option('--file <path>', 'read the hex from a file (# starts a comment to the end of a line, as on stdin)')
    .option('--encrypted', 'the bytes are as on the wire: decrypt them (AlbyRules, the game cipher) before decoding')
    .option('--plain', 'the bytes are plaintext: do not try the decrypted reading')
    .option('--json', 'print one JSON object instead of the annotated listing')
    .option(
      '--pcap <file>',
      'decode every BC datagram of a pcap or pcapng capture, one trace line each (--json: trace-style JSON lines)',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 decoded (deviations included), 1 malformed datagram (error and partial decode printed), 2 input is not hex or cannot be read.\n' +
        'Without --encrypted or --plain both readings are tried and the one that parses is shown (plaintext if both do);\n' +
        'the "reading:" line (JSON: reading, otherReadingParses) says which.\n' +
        'A datagram over 512 bytes (the stock limit) is decoded with a warning on stderr.\n' +
        'Examples:\n  bcsim decode 02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00\n' +
        '  bcsim decode --file capture.hex --json\n  echo "FF 01 03 0F C0 00 00 FF 54 B1 7C 00 4F B3 58 0B BE" | bcsim decode -\n' +
        '  bcsim decode 01 D7 31 78 DB 58            (an encrypted ACK: read as encrypted automatically)\n' +
        `${WIRE_FORMS_HELP}\n\n${DECODE_PCAP_HELP}\n`,
    )
    .action(
      async (
        hex: string[],
        options: { json?: boolean; file?: string; encrypted?: boolean; plain?: boolean; pcap?: string },
      ) => {
        setExit((await import('./commands/decode.js')).decodeCommand(hex, options, io));
      },
    );

  program
    .command('run')
    .description('run one scenario in one mode and summarise it')
    .argument('<scenario>', 'a built-in scenario name (see `bcsim scenarios`) or a path to a scenario JSON file')
    .option(
      '--mode <preset>',
      "stock (the bugs) or fixed (the remedies), optionally +switch=value..., e.g. stock+ackRefresh=reset-count; default: the scenario's mode",
    )
    .option('--seed <n>', "random seed; default: the scenario's seed")
    .option('--duration <d>', "simulated time, e.g. 30s, 10m, 4h; default: the scenario's duration")
    .option('--loss <p>', "Bernoulli loss on both directions, replacing the scenario's loss models")
    .option(
      '--set <path=value>',
      'override any scenario field, validated like the file (repeatable), e.g. --set traffic.phases[1].duration=5m',
      collect,
    )
    .option(
      '--switch <name=value>',
      'set one mode switch (repeatable), e.g. --switch ackSendLimit=5 or --switch keepalive.reliable=true',
      collect,
    )
    .option('--json', 'print one bcsim.summary/1 JSON object')
    .option(
      '--check-determinism',
      'run twice and fail (exit 1), naming the first diverging datagram, if the traces differ',
    )
    .option('--pcap <file>', 'also write the run as a pcapng capture to FILE (see below)')
    .option('--pcap-plaintext', 'with --pcap: UDP payloads in plaintext, not encrypted as on the wire')
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

  program
    .command('compare')
    .description(
      'run a scenario in stock and fixed mode side by side and write reports (the main job); a scheme scenario runs its own columns',
    )
    .argument('<scenario>', 'a built-in scenario name (BC or scheme) or a path to a scenario JSON file')
    .option('--duration <d>', "simulated time, e.g. 30m or 4h; default: the scenario's duration")
    .option('--seed <n>', "random seed; default: the scenario's seed")
    .option(
      '--loss <p>',
      "Bernoulli loss on both directions in every column, replacing the scenario's loss models (as in bcsim run)",
    )
    .addOption(
      new Option('--mode <preset>', 'refused with a pointer to --config: the columns are the modes').hideHelp(),
    )
    .option('--out <dir>', 'where to write the reports', 'reports/<scenario>')
    .option('--causes', 'also run each fragment-ACK cause as a column of its own')
    .option(
      '--config <label:items>',
      'a column: LABEL:ITEM[,ITEM...], items being a preset (stock, fixed, stock+switch=value), a switch (ackSendLimit=5) or a scenario edit (link.both.loss=0.1); repeatable, 2 to 8',
      collect,
    )
    .option('--a <label:items>', 'the first column, as --config')
    .option('--b <label:items>', 'the second column, as --config')
    .option('--switch <name=value>', 'set a mode switch in every column (repeatable)', collect)
    .option('--set <path=value>', 'override any scenario field in every column (repeatable)', collect)
    .option(
      '--fail-on <expr>',
      "exit 1 if it holds for a column: 'leak', or '[LABEL:]PATH OP N' such as 'delivery.reliableLost>0' (repeatable)",
      collect,
    )
    .option('--json', 'print the summary.json document instead of the table')
    .option(
      '--pcap <file>',
      'also write one pcapng capture per column: the label goes before the extension (out.pcapng -> out.stock.pcapng, out.fixed.pcapng)',
    )
    .option('--pcap-plaintext', 'with --pcap: UDP payloads in plaintext, not encrypted as on the wire')
    .option(
      '--jobs <n>',
      'run the columns on N worker threads; default one per core (up to the columns) when each column simulates 30 min or more, else 1. The output is the same either way',
    )
    .addHelpText(
      'after',
      '\nWrites summary.json, timeseries.csv, report.md and report.html (atomically) into --out. The default\n' +
        '--out is reports/<scenario> only for the built-in defaults: with any --set, --switch, --config, --causes,\n' +
        '--duration or --seed it is reports/experiments/<scenario>-<id>, so an experiment never overwrites the\n' +
        'committed reports (give --out reports/<scenario> to do that on purpose). After the table, one verdict\n' +
        'line per metric group compares every column with the first.\n' +
        'Examples:\n  bcsim compare long-session\n  bcsim compare heavy-combat --duration 10m --causes --out /tmp/heavy\n' +
        "  bcsim compare valentines --duration 10m --a 'A:stock' --b 'B:stock,ackRefresh=reset-count'\n" +
        "  bcsim compare lossy-link --config 'stock:stock' --config 'fixed:fixed' --config 'fixed-w64:fixed,sendWindow=64' --fail-on 'fixed:delivery.reliableLost>0'\n" +
        '  bcsim compare fragment-ack-bug --pcap /tmp/fa.pcapng      (writes /tmp/fa.stock.pcapng and /tmp/fa.fixed.pcapng)\n' +
        `\n${PCAP_HELP}\n` +
        '  With compare, --pcap FILE writes one capture per column, the column label (: becomes -) before the\n' +
        '  extension; all of them appear together, after every run has finished, or none does.\n' +
        `\n${SCHEME_COMPARE_HELP}\n`,
    )
    .action(async (ref: string, flags: CompareFlags) => {
      setExit(
        await (await import('./commands/compare.js')).compareCommand(
          ref,
          { ...flags, out: flags.out === 'reports/<scenario>' ? undefined : flags.out },
          io,
        ),
      );
    });

  program
    .command('trace')
    .description('print the annotated wire trace of a run: every datagram, drop, ACK verdict and duplicate')
    .argument('<scenario>', 'a built-in scenario name or a path to a scenario JSON file')
    .option('--mode <preset>', "stock or fixed, optionally +switch=value...; default: the scenario's mode")
    .option('--seed <n>', "random seed; default: the scenario's seed")
    .option('--from <t>', 'first simulated time to show, e.g. 10s', '0')
    .option('--until <t>', "stop the run here, e.g. 20s; default: the run's duration")
    .option('--duration <d>', "simulated time of the run, as in bcsim run, e.g. 10m; default: the scenario's duration")
    .option('--loss <p>', "Bernoulli loss on both directions, replacing the scenario's loss models (as in bcsim run)")
    .option('--peer <role>', 'only events of server or client (its sends, and the verdicts at it)')
    .option('--client <k>', "only client k's connection (k = 1..clients, the scenario's order), both ends")
    .option(
      '--slot <s>',
      'only the connection the server gave slot s (2, 3, ... in connect order), from its first connect attempt',
    )
    .option(
      '--filter <expr>',
      'decoded-field terms, all of which must hold: seq=2, type=ack, fragment, frag=1, retransmit, deadZone, event=drop, !reliable',
    )
    .option('--set <path=value>', 'override any scenario field (repeatable)', collect)
    .option('--switch <name=value>', 'set one mode switch (repeatable), e.g. --switch messageLifetime=session', collect)
    .option('--json', 'JSON Lines: one object per datagram or event')
    .option(
      '--bytes <how>',
      'raw bytes per datagram: none, short (first 16, then …) or full; default: short on a terminal, else full',
    )
    .option(
      '--pcap <file>',
      'also write the run (every datagram up to --until, whatever --from/--filter/--client show) as a pcapng capture',
    )
    .option('--pcap-plaintext', 'with --pcap: UDP payloads in plaintext, not encrypted as on the wire')
    .addHelpText(
      'after',
      '\nMarks: [RETRANSMIT #n] re-sent message, [DEAD-ZONE ACK, pass 2] ACK sent by the gated pass 2,\n' +
        'DROP(cause) link drop, LINK-DUP duplicated datagram, DUPLICATE reliable message seen before,\n' +
        'ack ...: MATCHED / no match (and why) at the peer that receives the ACK.\n' +
        "The client's connect request uses type byte 0x03, ConnectAck's, and is shown as connect (type 0x03 as captured).\n" +
        'With --json, --bytes none drops "hex" and short cuts it to 16 bytes with "hexTruncated": true; the default is full.\n' +
        'The run stops as soon as the reader of stdout goes away (| head).\n' +
        'With several clients the direction names the connection by the slot the server gave it: C3>S, S>C3, at C3\n' +
        "(its client end), at S3 (the server's end). Before the server accepts it, it has no slot and is named by\n" +
        'client number, lowercase: c2>S, at c2. --json lines carry "client" and "slot" (null until accepted).\n' +
        'Examples:\n  bcsim trace fragment-ack-bug --until 20s\n  bcsim trace fragment-ack-bug --filter seq=2,fragment --peer client\n' +
        '  bcsim trace fragment-ack-bug --until 20s --bytes none\n  bcsim trace long-session | head -50\n' +
        '  bcsim trace valentines --until 20s --slot 3\n' +
        '  bcsim trace fragment-ack-bug --until 60s --pcap /tmp/fa.pcapng\n' +
        `\n${PCAP_HELP}\n` +
        '  With trace, the capture holds the whole run up to --until, and with --pcap the run goes on to its end\n' +
        '  when the reader of stdout goes away, so the capture is complete.\n',
    )
    .action(async (ref: string, flags: TraceFlags) => {
      setExit(await (await import('./commands/trace.js')).traceCommand(ref, flags, io));
    });

  program
    .command('reproduce')
    .description(
      'measure the model against the observed bugs: fragment-ack (cause by cause), ack-outbox, or the R-Type defects (rtype)',
    )
    .argument('<target>', 'fragment-ack, ack-outbox or rtype')
    .option('--seed <n>', 'random seed for the runs')
    .option(
      '--loss <p>',
      'fragment-ack: loss for the lossy rerun of every cause; rtype: loss on every link, both ways',
      '0.2',
    )
    .option('--duration <d>', 'rtype: simulated time of each run (default 60s, at least 10s)')
    .option('--json', 'print one JSON object')
    .addHelpText(
      'after',
      '\nfragment-ack runs fragment-ack-bug on the stock preset once per candidate cause and once\n' +
        'with no fragment ever re-sent (none), on a clean and a lossy link; checks each\n' +
        'against the observed signature and weighs the evidence for and against it (--json: evidence, score,\n' +
        'best, similar). Exit 1 if the stock cause (matcher-rejects-fragments) is no longer ranked first.\n' +
        'Re-sends are expected until the run ends or the message lifetime does (peer-timeout: 45 s).\n' +
        'ack-outbox runs 28 named readings of the stock model through four experiments each and scores them\n' +
        'against 26 ACK-outbox observations, each with its tolerance, source and kind of evidence:\n' +
        'captured bytes rank above measured figures above inferences. --json has `hypotheses` (name,\n' +
        'switches, one {value, expected, matches} per criterion, score), `best`, `contradictions` and\n' +
        '`alternatives` (the readings of similar rank). Then it sweeps reliable rates at 95 and 33 ms updates\n' +
        'for both peers (predictions: no session at these rates was measured) and states the capacity\n' +
        'relation: an outbox runs away once game bytes + 9 x 4 ACK bytes per reliable message exceed 510 B\n' +
        'per update. Exit 1 if the reading the stock preset runs (calibrated) is no longer ranked first.\n' +
        'A reading marked † takes a fact the spec does not state: it is ranked, but the preset never follows it.\n' +
        'It takes about 15 s: progress goes to stderr (one line per reading and swept rate when not a terminal);\n' +
        "the text fits 120 columns (marks and rank per reading, the stock reading's values), --json has every value.\n" +
        `\n${REPRODUCE_RTYPE_HELP}\n`,
    )
    .action(async (target: string, flags: ReproduceFlags) => {
      setExit((await import('./commands/reproduce.js')).reproduceCommand(target, flags, io));
    });

  program
    .command('check')
    .description("evaluate scenarios' expect blocks: exit 0 if every assertion holds, 1 if not, 2 on a bad path")
    .argument('<scenario...>', 'built-in scenario names or paths to scenario JSON files')
    .option('--mode <preset>', "only this mode's expectations; stock+switch=value... also sets switches")
    .option('--seed <n>', "random seed for every run; default: each scenario's seed")
    .option(
      '--seeds <list>',
      'run every seed of a list, in order, e.g. 1..20, 5..9 or 1,4,9 (at most 10,000 seeds); name the first failing one',
    )
    .option('--duration <d>', "simulated time of every run, e.g. 30s, 10m; default: each scenario's duration")
    .option(
      '--loss <p>',
      "Bernoulli loss on both directions in every run, replacing the scenarios' loss models (as in bcsim run)",
    )
    .option(
      '--set <path=value>',
      'override any field of every scenario given, validated like the file (repeatable)',
      collect,
    )
    .option('--switch <name=value>', 'set one mode switch in every scenario given (repeatable)', collect)
    .option('--junit <file>', 'also write JUnit XML for CI systems')
    .option(
      '--check-determinism',
      'run everything twice and fail, naming the first diverging datagram, if the traces differ',
    )
    .option('--json', 'print one JSON object')
    .addHelpText(
      'after',
      '\nAn expect block: { "fixed": { "peers.*.ackOutbox.max": { "lte": 20 }, "delivery.reliableLost": { "eq": 0 } } }\n' +
        'Ops: eq, lt, lte, gt, gte. "*" in a path means every peer. On failure the exact command that reproduces\n' +
        'the run is printed. With --seeds every seed runs, in order, failures included; exit 1 if any failed, and\n' +
        'the last lines name the first failing seed and a `bcsim check … --seed N` command that reproduces it.\n' +
        'A --duration that ends a run before its phase plan does is said once on stderr (settings.phasePlanCut has the\n' +
        'phases); then an end-of-run value (.final) and a lower bound not yet reached are not applicable: shown with –,\n' +
        'never a pass, never a failure (JUnit skipped). Upper bounds are judged on the part that ran.\n' +
        'Examples:\n  bcsim check fragment-ack-bug long-session --check-determinism --junit reports/junit.xml\n' +
        '  bcsim check scenarios/examples/my-fix.json --seeds 1..20 --duration 1m --set link.both.loss=0.1\n',
    )
    .action(async (refs: string[], flags: CheckFlags) => {
      setExit((await import('./commands/check.js')).checkCommand(refs, flags, io));
    });

  program
    .command('analyze')
    .description(
      'measure a capture: the figures bcsim reports, from the wire alone (optionally beside a simulated run)',
    )
    .argument('<file>', 'a pcap or pcapng capture (Ethernet, raw IPv4, Linux cooked SLL/SLL2)')
    .option('--json', 'print one JSON object (bcsim.analyze/2; with --against, bcsim.analyze-against/2)')
    .option(
      '--against <scenario>',
      'also run this scenario and show the same figures, computed the same way, beside the capture',
    )
    .option(
      '--mode <preset>',
      "with --against: stock or fixed, optionally +switch=value...; default: the scenario's mode",
    )
    .option('--seed <n>', "with --against: random seed; default: the scenario's seed")
    .option('--duration <d>', "with --against: simulated time, e.g. 2m; default: the scenario's duration")
    .option('--loss <p>', "with --against: Bernoulli loss on both directions, replacing the scenario's loss models")
    .option('--set <path=value>', 'with --against: override any scenario field (repeatable)', collect)
    .option('--switch <name=value>', 'with --against: set one mode switch (repeatable)', collect)
    .option(
      '--ack-rule <rule>',
      "each end's ACK behaviour: auto (read from its own wire), or forced for every end: two-pass (freed at the 9th send), single-pass (3rd) or immediate (each ACK sent once)",
      'auto',
    )
    .addHelpText('after', `\n${ANALYZE_HELP}\n`)
    .action(async (file: string, flags: AnalyzeFlags) => {
      setExit((await import('./commands/analyze.js')).analyzeCommand(file, flags, io));
    });

  program
    .command('proxy')
    .description(
      "relay real UDP between BC clients and a server, applying a scenario's link model and drop rules in real time",
    )
    .option('--listen <host:port>', 'where clients send to (required; e.g. 127.0.0.1:22102)')
    .option('--upstream <host:port>', 'the real server (required; e.g. 127.0.0.1:22101)')
    .option(
      '--upstream-bind <host>',
      'address of the per-client sockets facing the server (port 0); default: the --listen host',
    )
    .option('--scenario <s>', "apply this scenario's per-client links (built-in name or file); default: perfect links")
    .option(
      '--set <path=value>',
      'override any scenario field (repeatable), e.g. --set link.clientToServer.latencyMs=40',
      collect,
    )
    .option('--loss <p>', 'Bernoulli loss on both directions, replacing the loss models')
    .option(
      '--seed <n>',
      "seed of the link's random decisions (streams indexed by datagram number); default: the scenario's",
    )
    .option('--duration <d>', 'stop after this wall time, e.g. 30s; default: run until SIGINT/SIGTERM')
    .option(
      '--pcap <file>',
      'at exit, write a pcapng of everything forwarded (as sent) and dropped (commented DROPPED (cause))',
    )
    .option('--out <file>', 'at exit, write the bcsim.proxy/1 summary JSON here')
    .option('--json', 'print the summary as JSON (bcsim.proxy/1) instead of text')
    .addHelpText(
      'after',
      '\nClient k is the k-th client address seen (at most 64); it gets its own socket towards the server and the links\n' +
        'of scenario client min(k, clients). Datagrams are decrypted (AlbyRules) and decoded, so drop rules match decoded\n' +
        'fields; a rewritten datagram is re-encrypted. GameSpy packets (first byte \\) and undecodable datagrams are\n' +
        "forwarded untouched and counted. A datagram in a reimplementation's wire form is read,\n" +
        'relayed through the link as sent and counted per client and direction; a drop rule that cuts messages out of it\n' +
        "keeps the other messages' own bytes. Outage and drop-rule times count from the proxy's start.\n" +
        'On a terminal, a status line on stderr shows per end: un-ACKed reliable messages, re-sends, fragment rounds,\n' +
        "stale ACKs and the ACK-outbox estimate under the ACK behaviour that end's own wire shows (two-pass, single-pass,\n" +
        'immediate; "?" while unknown). At exit (SIGINT, SIGTERM, --duration) the summary and the capture are written\n' +
        'together, atomically; "analysis" holds the `bcsim analyze` figures of both ends, each end\'s ACK behaviour with\n' +
        "its evidence, and the server's removal of a client (Boot, BootPlayer, Disconnect, or silent for good).\n" +
        'WARNING: bind to loopback only. The proxy forwards anything from anyone who reaches --listen to --upstream;\n' +
        'never bind it to a public or wildcard address (a warning is printed when --listen is not loopback).\n' +
        'Examples:\n  bcsim proxy --listen 127.0.0.1:22102 --upstream 127.0.0.1:22101 --loss 0.1 --duration 30s\n' +
        '  bcsim proxy --listen 127.0.0.1:22102 --upstream 127.0.0.1:22101 --scenario lossy-link --seed 7 --pcap /tmp/p.pcapng --json\n' +
        `  bcsim proxy --listen 127.0.0.1:22102 --upstream 127.0.0.1:22101 --set 'link.serverToClient.drop=[{"match":{"type":"ack","fragment":true}}]'\n`,
    )
    .action(async (flags: ProxyFlags) => {
      setExit(await (await import('./commands/proxy.js')).proxyCommand(flags, io));
    });

  program
    .command('peer')
    .description(
      'run one end of the model, client or server, in real time against a real counterpart on UDP, then judge it',
    )
    .argument('<side>', 'client (connects to a server) or server (answers clients)')
    .option('--connect <host:port>', 'client: the server to join (required for a client)')
    .option(
      '--bind <host:port>',
      'client: where to bind its socket; default loopback, any port (required when --connect is not loopback)',
    )
    .option('--listen <host:port>', 'server: where to listen (required for a server)')
    .option('--clients <n>', 'server: how many clients it serves (the k-th new address is client k); default 1')
    .option('--scenario <s>', 'the traffic to play (built-in name or file): its join, then its phases; default: live')
    .option(
      '--mode <preset>',
      "stock (the bugs) or fixed (the remedies), optionally +switch=value...; default the scenario's",
    )
    .option('--switch <name=value>', 'set one mode switch (repeatable)', collect)
    .option('--set <path=value>', 'override any scenario field (repeatable)', collect)
    .option('--seed <n>', "seed of the traffic's random draws; default the scenario's")
    .option(
      '--duration <d>',
      "wall time of the whole run, e.g. 20s; a client's goodbye ends at most 1 s after it; default the scenario's duration",
    )
    .option(
      '--expect <rules.json>',
      'conformance rules to judge the counterpart by; default: all six rules with their defaults',
    )
    .option(
      '--checksums <check>',
      "server: how it checks a client's checksum answers: form (a well-formed tree of the round asked; default) or hashes (every hash against the scenario's manifest too); a client that fails is Booted",
    )
    .option(
      '--require-exercised',
      'a rule that checked nothing fails the run (exit 1); default: it is reported NOT EXERCISED and does not',
    )
    .option('--junit <file>', 'also write the conformance results as JUnit XML')
    .option('--out <file>', 'also write the bcsim.live/1 summary JSON here')
    .option('--json', 'print the bcsim.live/1 summary (with conformance results) as JSON')
    .addHelpText('after', `\n${PEER_HELP}\n`)
    .action(async (side: string, flags: PeerFlags) => {
      setExit(await (await import('./commands/peer.js')).peerCommand(side, flags, io));
    });

  program
    .command('conform')
    .description(
      "test your server's transport: short live sessions against it, each with one targeted wire fault, judged PASS, FAIL or NOT EXERCISED",
    )
    .option('--server <host:port>', 'the server under test (required)')
    .option('--cases <list>', `cases to run, comma-separated (default: all); --list shows them`)
    .option('--seed <n>', 'seed of every random choice (hostile bytes, fragment orders); default 1')
    .option(
      '--parallel <n>',
      'at most this many sessions (client slots of the server) at once, at least 3 (a case opens up to 3 together); default 4',
    )
    .option(
      '--peer-timeout <d>',
      "the server's peer timeout: the removal case waits this plus 15 s for it (default 45s, the stock peer timeout)",
    )
    .option('--wrap-budget <d>', 'how long the seq-wrap case may take before it says NOT EXERCISED (default 60s)')
    .option('--scenario <s>', 'whose checksum manifest the join answers with (built-in name or file); default: live')
    .option('--bind <host>', 'the local address to send from; default loopback (required when the server is not)')
    .option('--json', 'print the bcsim.conform/1 report as JSON')
    .option(
      '--junit <file>',
      'also write the results as JUnit XML (FAIL: a failure with its evidence; NOT EXERCISED: skipped)',
    )
    .option('--out <file>', 'also write the bcsim.conform/1 report here')
    .option(
      '--pcap <file>',
      "also write every session's datagrams as a pcapng (Wireshark, bcsim analyze), ours commented",
    )
    .option('--list', 'list the cases and exit')
    .addHelpText('after', `\n${CONFORM_HELP}\n`)
    .action(async (flags: ConformFlags) => {
      setExit(await (await import('./commands/conform.js')).conformCommand(flags, io));
    });

  program
    .command('sweep')
    .description('run a grid of seeded runs (modes × --vary values × seeds) on worker threads, one JSON line per run')
    .argument('<scenario>', 'a built-in scenario name or a path to a scenario JSON file')
    .option(
      '--seeds <list>',
      "seeds to run, e.g. 1..1000, 5..9 or 1,4,9 (at most 10,000); default: the scenario's seed",
    )
    .option('--seed <n>', 'one seed (the same as --seeds N)')
    .option(
      '--vary <path=values>',
      'vary a scenario path (as --set takes it) over values: path=v1,v2,... or path=lo..hi:step (repeatable; the grid is their product)',
      collect,
    )
    .option('--mode <modes>', "stock, fixed or stock,fixed; default: the scenario's mode")
    .option('--duration <d>', "simulated time of every run, e.g. 30s, 10m; default: the scenario's duration")
    .option(
      '--loss <p>',
      "Bernoulli loss on both directions in every run, replacing the scenario's loss models (as in bcsim run)",
    )
    .option('--set <path=value>', 'override any scenario field in every run (repeatable)', collect)
    .option('--switch <name=value>', 'set one mode switch in every run (repeatable)', collect)
    .option('--jobs <n>', 'worker threads; default: one per core (1 runs in this process)')
    .option('--out <file>', 'write the JSON lines to FILE (atomically, when the sweep ends); - or none: stdout')
    .option('--shard <i/n>', 'run only the grid indexes with index % n == i-1 (merge the shards with sweep-merge)')
    .option(
      '--metrics <paths>',
      'summary paths for the summary table, comma-separated; default peers.server.ackOutbox.max,peers.client.ackOutbox.max,delivery.reliableLost',
    )
    .option(
      '--html <file>',
      'also write the summary as an HTML page (tables, and charts when one numeric parameter is varied)',
    )
    .addHelpText(
      'after',
      '\nThe grid is modes × the values of each --vary (in the order given, the last changing fastest) × seeds, seeds\n' +
        'innermost; index = its position, the same on every machine. Each run is one JSON line, in index order whatever\n' +
        'order runs finish in: {index, grid, runs, scenario, mode, seed, vary, traceHash, simulatedSeconds, figures,\n' +
        'verdict}. figures holds the key summary figures nested as in the summary (delivery.reliableLost,\n' +
        "peers.server.ackOutbox.max, ...); verdict is {passed, failed: [paths]} from the scenario's expect block for the\n" +
        'mode, or null; verdict.notApplicable lists the assertions a run that ended inside its phase plan cannot judge\n' +
        '(bcsim check --help). No wall times: the same command writes the same bytes, with any --jobs. At the end, a table of\n' +
        'min / median / max over the seeds per mode and value (on stdout with --out FILE, else stderr).\n' +
        'Exit codes: 0 every verdict passed (or none), 1 a run failed its expect block, 2 bad input, 130 interrupted\n' +
        '(nothing written).\n' +
        'Examples:\n  bcsim sweep lossy-link --mode stock,fixed --seeds 1..20 --duration 2m --out /tmp/lossy.jsonl\n' +
        "  bcsim sweep lossy-link --vary 'traffic.phases[1].reliablePerSecond=10..60:10' --seeds 1..5 --duration 2m --html /tmp/sweep.html\n" +
        '  bcsim sweep lossy-link --vary link.both.latencyMs=20,80,200 --mode fixed --seeds 1..100 --duration 2m --shard 2/4 --out shard-2.jsonl\n',
    )
    .action(async (ref: string, flags: SweepFlags) => {
      setExit(await (await import('./commands/sweep.js')).sweepCommand(ref, flags, io));
    });

  program
    .command('sweep-merge')
    .description('merge sweep shards (--shard i/n) into the file one machine would have written')
    .argument('<files...>', 'the JSON-lines files of the shards, in any order')
    .option('--out <file>', 'write the merged lines to FILE (atomically); - or none: stdout')
    .addHelpText(
      'after',
      '\nThe lines are put back in index order. Refused (exit 2, one line naming the file and line): a line that is not a\n' +
        'sweep result, lines of a different sweep (another grid), a run given twice, or a run missing from every file.\n' +
        'Examples:\n  bcsim sweep-merge shard-*.jsonl --out results.jsonl\n',
    )
    .action(async (files: string[], flags: SweepMergeFlags) => {
      setExit((await import('./commands/sweep.js')).sweepMergeCommand(files, flags, io));
    });

  program
    .command('swarm')
    .description(
      'seeded random runs (links, faults, traffic) checked against the invariants; stops at the first failure and prints its reproduction',
    )
    .option('--runs <n>', 'how many generated runs (default 100)')
    .option('--seed <s>', 'generator seed: the same seed generates the same runs (default 9062024, the CI swarm)')
    .option('--index <i>', 'run only generated run I (what a printed `swarm:` line does)')
    .option(
      '--mode <preset>',
      'fixed (default: the fixed-mode promise, bounded queues) or stock (ledger, faults fired, no throw)',
    )
    .option(
      '--switch <name=value>',
      'set one top-level mode switch in every run (repeatable), e.g. --switch closePolicy=immediate',
      collect,
    )
    .option('--all', 'run every run and list every failure instead of stopping at the first')
    .option('--json', 'print one bcsim.swarm/1 JSON object')
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
        '  bcsim swarm --seed 9062024 --index 208 --switch plantedBug=no-duplicate-ack      (exits 1: the planted bug breaks this run)\n',
    )
    .action(async (flags: SwarmFlags) => {
      setExit((await import('./commands/swarm.js')).swarmCliCommand(flags, io));
    });

  program
    .command('shrink')
    .description(
      'shrink a failing swarm run to the smallest scenario that fails the same invariant on the same message',
    )
    .argument(
      '[repro]',
      'the line swarm printed: "bcsim swarm --seed G --index I …" or "bcsim run <scenario> --mode M --seed N --set …"',
    )
    .option('--file <path>', 'read the repro line from a file')
    .option(
      '--out <file>',
      'write the shrunk scenario here (atomically); FILE.trace and FILE.pcapng go beside it; default shrunk-swarm-G-I.json (a swarm line) or shrunk-<scenario>-seed-N.json (a run line) in the working directory',
    )
    .option('--budget <n>', 'at most this many candidate runs (default 500)')
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
        "  bcsim shrink 'bcsim swarm --seed 9062024 --index 208 --mode fixed --switch plantedBug=no-duplicate-ack' --out /tmp/shrunk.json\n" +
        '  bcsim shrink --file repro.txt --out /tmp/shrunk.json --budget 200\n',
    )
    .action(async (repro: string | undefined, flags: ShrinkFlags) => {
      setExit((await import('./commands/shrink.js')).shrinkCommand(repro, flags, io));
    });

  program
    .command('scenarios')
    .description('list the built-in scenarios and what each is for')
    .option('--json', 'print them as a JSON array')
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
