// The commands that meet real UDP on the wall clock: proxy, peer, conform and soak.
// Only their flags and --help live here; each action loads its command module on use.
import { Option } from 'commander';
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import type { ConformFlags } from './commands/conform.js';
import type { PeerFlags } from './commands/peer.js';
import type { ProxyFlags } from './commands/proxy.js';
import type { SoakFlags } from './commands/soak.js';
import { renamedFlag } from './deprecated.js';
import { addFlags } from './flags.js';
import { CONFORM_HELP, PEER_HELP, SOAK_HELP } from './help-texts.js';

export function addLiveCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
  const proxyCommand = program
    .command('proxy')
    .description(
      "relay real UDP between BC clients and a server, applying a scenario's link model and drop rules in real time",
    );
  addFlags(proxyCommand, 'proxy', {
    '--listen': 'clients send here (required; e.g. 127.0.0.1:22102)',
    '--upstream': 'e.g. 127.0.0.1:22101',
    '--upstream-bind': '(port 0); default: the --listen host',
    '--scenario': 'its per-client links apply; default: perfect links',
    '--set': 'e.g. --set link.clientToServer.latencyMs=40',
    '--loss': 'replacing the loss models',
    '--seed': "of the link's decisions (streams indexed by datagram number); default: the scenario's",
    '--duration': 'to stop after, e.g. 30s; default: run until SIGINT/SIGTERM',
    '--pcap': 'at exit, everything forwarded (as sent) and dropped (commented DROPPED (cause))',
    '--out': 'at exit, the bcsim.proxy/1 summary JSON',
    '--json': 'the summary as bcsim.proxy/1 JSON instead of text',
  });
  proxyCommand
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

  const peerCommand = program
    .command('peer')
    .description(
      'run one end of the model, client or server, in real time against a real counterpart on UDP, then judge it',
    )
    .argument('<side>', 'client (connects to a server) or server (answers clients)');
  addFlags(peerCommand, 'peer', {
    '--connect': null,
    '--bind':
      'client: where its socket binds (with --clients N, client k at the port k - 1 past it); default loopback, any port (required when --connect is not loopback)',
    '--listen': 'server (required for a server)',
    '--clients':
      "server: how many places it has; a new address takes a free place, or one whose client left (a new connection each time). client: how many clients to play from one command, 1 to 16, each with its own socket, playing its share of the scenario's traffic and judged on its own connection; default 1",
    '--scenario': 'the traffic to play, its join then its phases; default: live',
    '--mode': "default the scenario's",
    '--switch': null,
    '--set': null,
    '--seed': "of the traffic's draws; default the scenario's",
    '--duration':
      "of the whole run, e.g. 20s; a client's goodbye ends at most 1 s after it; default the scenario's duration",
    '--expect': 'default: all six rules with their defaults',
    '--checksums':
      'form (a well-formed tree of the round asked; default) or hashes (every hash against the manifest too; the default with --manifest); a client that fails is Booted',
    '--manifest': "answer (client) or ask and check (server) the rounds from it, in place of the scenario's",
    '--require-exercised': 'default: a rule that checked nothing is reported and does not',
    '--wire-log-mb': '(default 64, at most 1024); past it they are counted, not kept',
    '--junit': 'the conformance results',
    '--out': 'the bcsim.live/1 summary JSON',
    '--json': 'the bcsim.live/1 summary, with the conformance results',
  });
  peerCommand.addHelpText('after', `\n${PEER_HELP}\n`).action(async (side: string, flags: PeerFlags) => {
    setExit(await (await import('./commands/peer.js')).peerCommand(side, flags, io));
  });

  const conformCommand = program
    .command('conform')
    .description(
      "test your server's transport: short live sessions against it, each with one targeted wire fault, judged PASS, FAIL or NOT EXERCISED",
    );
  addFlags(conformCommand, 'conform', {
    '--server': null,
    '--cases': '--list shows them',
    '--seed': 'of every random choice (hostile bytes, fragment orders); default 1',
    '--parallel': '(client slots of the server), at least 3 (a case opens up to 3 together); default 4',
    '--peer-timeout': 'the removal case waits this plus --timeout-grace for it (default 45s, the stock peer timeout)',
    '--timeout-grace':
      "for the server's Boot, 3s to 10m (default 15s); a Boot ends the wait as it comes, so only a server that sends none waits it all",
    '--wrap-budget': '(seq-wrap, server-seq-wrap) before it says NOT EXERCISED (default 60s)',
    '--manifest':
      "the hashes to answer with, for a server that checks them (rounds it lacks keep bcsim's stand-ins, and the run says so)",
    '--scenario': 'whose checksum manifest the join answers with; default: live',
    '--bind': 'a host (each session binds a port of its own); default loopback (required when the server is not)',
    '--require-exercised': 'without it, a run fails only when no case at all was exercised',
    '--json': 'the bcsim.conform/1 report',
    '--junit': 'FAIL: a failure with its evidence; NOT EXERCISED: skipped, or a failure with --require-exercised',
    '--out': 'the bcsim.conform/1 report',
    '--pcap': "every session's datagrams (Wireshark, bcsim analyze), ours commented",
    '--list': null,
  });
  conformCommand.addHelpText('after', `\n${CONFORM_HELP}\n`).action(async (flags: ConformFlags) => {
    setExit(await (await import('./commands/conform.js')).conformCommand(flags, io));
  });

  const soakCommand = program
    .command('soak')
    .description(
      'a long session of several clients against a real server, measured minute by minute from the wire, beside the stock and fixed models',
    );
  addFlags(soakCommand, 'soak', {
    '--server': null,
    '--out-dir': 'required: summary.json, timeseries.csv, report.md, report.html go there',
    '--scenario': 'the traffic the clients play; default valentines, the measured 34-minute 3-player session',
    '--clients': "1 to 16, each its own socket and connection; default the scenario's",
    '--duration': "of the soak, e.g. 30m or 4h; default the scenario's duration",
    '--loss': 'at our sockets; the models get the same loss on their links',
    '--manifest': 'the clients answer from it, for a server that checks file hashes',
    '--mode': "of our clients' transport; default the scenario's",
    '--switch': 'of our clients',
    '--set': null,
    '--seed': "of the traffic's draws, ours and the models'; default the scenario's",
    '--bind': 'where the clients bind (client k at the port k - 1 past it); default loopback, any port',
    '--rejoin': '(removed, timed out), as a player would, and the soak goes on',
    '--json': 'summary.json (schema bcsim.soak/1) instead of the table',
  });
  soakCommand
    .addOption(new Option('--out <dir>', 'the old spelling of --out-dir').hideHelp())
    .addHelpText('after', `\n${SOAK_HELP}\n`)
    .action(async (flags: SoakFlags) => {
      const { outDir, ...rest } = flags;
      const out = renamedFlag(io, 'soak', { flag: '--out', value: flags.out }, { flag: '--out-dir', value: outDir });
      setExit(await (await import('./commands/soak.js')).soakCommand({ ...rest, out }, io));
    });
}
