// The commands that meet real UDP on the wall clock: proxy, peer, conform and soak.
// Only their flags and --help live here; each action loads its command module on use.
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import type { ConformFlags } from './commands/conform.js';
import type { PeerFlags } from './commands/peer.js';
import type { ProxyFlags } from './commands/proxy.js';
import type { SoakFlags } from './commands/soak.js';
import { collect } from './options.js';
import { CONFORM_HELP, PEER_HELP, SOAK_HELP } from './help-texts.js';

export function addLiveCommands(program: Command, io: CliIO, setExit: (code: number) => void): void {
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
      'client: where to bind its socket (with --clients N, client k at the port k - 1 past it; port 0: any port each); default loopback, any port (required when --connect is not loopback)',
    )
    .option('--listen <host:port>', 'server: where to listen (required for a server)')
    .option(
      '--clients <n>',
      "server: how many places it has; a new address takes a free place, or one whose client left (a new connection each time). client: how many clients to play from one command, 1 to 16, each with its own socket, playing its share of the scenario's traffic and judged on its own connection; default 1",
    )
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
      "server: how it checks a client's checksum answers: form (a well-formed tree of the round asked; default) or hashes (every hash against the manifest too; the default with --manifest); a client that fails is Booted",
    )
    .option(
      '--manifest <file>',
      "the checksum manifest to answer (client) or ask and check (server) the rounds from, in place of the scenario's: bcsim's form or a hash tool's ({\"directories\": ...})",
    )
    .option(
      '--require-exercised',
      'a rule that checked nothing fails the run (exit 1); default: it is reported NOT EXERCISED and does not',
    )
    .option(
      '--wire-log-mb <n>',
      'MiB of datagrams kept for the analysis and the rules (default 64, at most 1024); past it they are counted, not kept',
    )
    .option('--junit <file>', 'also write the conformance results as JUnit XML (into a folder that exists)')
    .option('--out <file>', 'also write the bcsim.live/1 summary JSON here (into a folder that exists)')
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
      "the server's peer timeout: the removal case waits this plus --timeout-grace for it (default 45s, the stock peer timeout)",
    )
    .option(
      '--timeout-grace <d>',
      "how long past --peer-timeout the removal case still waits for the server's Boot, 3s to 10m (default 15s); a Boot ends the wait as it comes, so only a server that sends none waits it all",
    )
    .option(
      '--wrap-budget <d>',
      'how long each wrap case (seq-wrap, server-seq-wrap) may take per category before it says NOT EXERCISED (default 60s)',
    )
    .option(
      '--manifest <file>',
      "the checksum hashes to answer with, for a server that checks them: bcsim's manifest form or a hash tool's JSON (rounds it lacks keep bcsim's stand-ins, and the run says so)",
    )
    .option('--scenario <s>', 'whose checksum manifest the join answers with (built-in name or file); default: live')
    .option(
      '--bind <host>',
      'the local address to send from, without a port (each session binds its own); default loopback (required when the server is not)',
    )
    .option(
      '--require-exercised',
      'a case NOT EXERCISED fails the run (exit 1); without it, a run fails only when no case at all was exercised',
    )
    .option('--json', 'print the bcsim.conform/1 report as JSON')
    .option(
      '--junit <file>',
      'also write the results as JUnit XML (FAIL: a failure with its evidence; NOT EXERCISED: skipped, or a failure with --require-exercised); its folder must exist',
    )
    .option('--out <file>', 'also write the bcsim.conform/1 report here (into a folder that exists)')
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
    .command('soak')
    .description(
      'a long session of several clients against a real server, measured minute by minute from the wire, beside the stock and fixed models',
    )
    .option('--server <host:port>', 'the server to soak (required)')
    .option(
      '--out <dir>',
      'the folder the report set is written to (required; a new folder: its parent must exist): summary.json, timeseries.csv, report.md, report.html',
    )
    .option(
      '--scenario <s>',
      'the traffic the clients play (built-in name or file); default valentines, the measured 34-minute 3-player session',
    )
    .option('--clients <n>', "how many clients, 1 to 16, each its own socket and connection; default the scenario's")
    .option('--duration <d>', "wall time of the soak, e.g. 30m or 4h; default the scenario's duration")
    .option(
      '--loss <p>',
      'Bernoulli loss at our sockets on both directions; the models get the same loss on their links',
    )
    .option(
      '--manifest <file>',
      "the checksum manifest the clients answer from, for a server that checks file hashes: bcsim's form or a hash tool's JSON",
    )
    .option(
      '--mode <preset>',
      "our clients' transport: stock or fixed, optionally +switch=value...; default the scenario's",
    )
    .option('--switch <name=value>', 'set one mode switch of our clients (repeatable)', collect)
    .option('--set <path=value>', 'override any scenario field (repeatable)', collect)
    .option('--seed <n>', "seed of the traffic's random draws, ours and the models'; default the scenario's")
    .option(
      '--bind <host:port>',
      'where to bind the clients (client k at the port k - 1 past it; port 0: any port each); default loopback, any port',
    )
    .option(
      '--rejoin',
      'a client whose connection the server ends (removed, timed out) joins again 5 s later, as a player would, and the soak goes on',
    )
    .option('--json', 'print summary.json (schema bcsim.soak/1) instead of the table')
    .addHelpText('after', `\n${SOAK_HELP}\n`)
    .action(async (flags: SoakFlags) => {
      setExit(await (await import('./commands/soak.js')).soakCommand(flags, io));
    });
}
