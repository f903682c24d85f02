// The commands that read the wire: decode (one datagram or a capture) and analyze (a capture's
// figures). Two functions, as --help lists decode first and analyze after the simulation commands.
import { Option } from 'commander';
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import type { AnalyzeFlags } from './commands/analyze.js';
import { addFlags } from './flags.js';
import { ANALYZE_HELP, DECODE_PCAP_HELP, WIRE_FORMS_HELP } from './help-texts.js';

export function addDecodeCommand(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const decodeCommand = program
    .command('decode')
    .description(
      'decode one datagram given as hex (arguments, a file or stdin) and annotate every field, or every BC datagram of a capture (decode FILE)',
    )
    .argument(
      '[input...]',
      'datagram bytes as hex, with or without spaces ("01 02 03" or 010203); - reads stdin; or one capture file (pcap, pcapng)',
    );
  addFlags(decodeCommand, 'decode', {
    '--file': 'the hex (# starts a comment to the end of a line, as on stdin)',
    '--encrypted': null,
    '--plain': null,
    '--json': 'one JSON object instead of the annotated listing; a capture: trace-style JSON lines',
  });
  decodeCommand
    .addOption(new Option('--pcap <file>', 'the old spelling of decode FILE').hideHelp())
    .addHelpText(
      'after',
      '\nExit codes: 0 decoded (deviations included), 1 malformed datagram (error and partial decode printed), 2 input is not hex or cannot be read.\n' +
        'Without --encrypted or --plain both readings are tried and the one that parses is shown (plaintext if both do);\n' +
        'the "reading:" line (JSON: reading, otherReadingParses) says which.\n' +
        'A datagram over 512 bytes (the stock limit) is decoded with a warning on stderr.\n' +
        'A checksum answer (game opcode 0x21) gets its round and hashes named (JSON: checksumAnswer), to hold against a\n' +
        "server's manifest; a fragment of one cannot be read alone (bcsim analyze puts a capture's together).\n" +
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
}

export function addAnalyzeCommand(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const analyzeCommand = program
    .command('analyze')
    .description(
      'measure a capture: the figures bcsim reports, from the wire alone (optionally beside a simulated run)',
    )
    .argument('<file>', 'a pcap or pcapng capture (Ethernet, raw IPv4, Linux cooked SLL/SLL2)');
  addFlags(analyzeCommand, 'analyze', {
    '--json': 'one object (bcsim.analyze/2; with --against, bcsim.analyze-against/2)',
    '--against': 'computed the same way',
    '--mode': "with --against; default: the scenario's mode",
    '--seed': "with --against; default: the scenario's seed",
    '--duration': "with --against, e.g. 2m; default: the scenario's duration",
    '--loss': "with --against, replacing the scenario's loss models",
    '--set': 'with --against',
    '--switch': 'with --against',
    '--ack-rule': {
      detail:
        'auto (read from its own wire), or forced for every end: two-pass (freed at the 9th send), single-pass (3rd) or immediate (each ACK sent once)',
      default: 'auto',
    },
  });
  analyzeCommand.addHelpText('after', `\n${ANALYZE_HELP}\n`).action(async (file: string, flags: AnalyzeFlags) => {
    setExit((await import('./commands/analyze.js')).analyzeCommand(file, flags, io));
  });
}
