// The long --help texts of the commands, kept apart from the command wiring in the *-commands.ts modules.
import { switchHelpLines } from '../model/transport/index.js';

/** The mode's switches, for --help: every switch and value, read off the declarations (docs/switches.md has the table). */
export const SWITCHES_HELP = [
  'Switches: --switch name=value (repeatable), --mode stock+name=value+..., or --set mode.name=value.',
  'Each with its values, its defaults, and [the transport parameters (--set transport.<p>=...) that go with it]:',
  ...switchHelpLines(),
  'Update periods: --set transport.updatePeriodMs={"server":5,"client":10}. A setting that does nothing under the',
  'chosen design (ackSendLimit under two-pass-gated, ...) is named in a warning on stderr and in settings.warnings.',
  'Fixed mode keeps its promise: every ACKed reliable message is delivered once, in order, or the',
  'connection ends and each undelivered message counts as lost (delivery.reliableLost).',
].join('\n');

/** Multi-player sessions, for --help (docs/scenarios.md#multi-player-sessions). */
export const CLIENTS_HELP =
  'Clients: a scenario runs one server and "clients": 1..16 (valentines 3, server-8 8). Per-client links:\n' +
  '  link.clients.<k>.both|clientToServer|serverToClient (k = client number). Phases for one client: {"kind":"join","client":k} (late join),\n' +
  '  {"kind":"disconnect","client":k}, {"kind":"timeout","client":k} (its host dies; the server Boots it).\n' +
  'The summary keys connections by slot (2, 3, ...): peers.server.connections.<slot>, peers.clients.<slot>;\n' +
  'peers.server and peers.client are totals. In --fail-on and expect, peers.clients.* means every client.';

/** `bcsim peer`, for --help (docs/live.md). */
export const PEER_HELP =
  'The same transport, traffic script and codec as a simulated run, on the wall clock, with the real cipher on the\n' +
  '  wire. The client joins (connect, checksum rounds with the fragmented round-2 response, settings,\n' +
  "  NewPlayerInGame), then plays the scenario's traffic; the server answers a real client's join the same way.\n" +
  "  Each join step waits for the counterpart's real reply (matched by type and opcode).\n" +
  '  The counterpart line reads its ACK behaviour from the wire (two-pass, single-pass, immediate or unknown)\n' +
  '  and estimates its ACK-outbox under it (none while unknown); the --json summary has the evidence.\n' +
  'Conformance rules (JSON: {"rules":[{"rule":"fragment-acks","withinMs":2000}, ...]}): fragment-acks,\n' +
  '  ack-within {ms}, ack-sends-max {max}, no-repeated-processing, retransmit-interval {minMs,maxMs},\n' +
  '  stops-after-ack {graceMs}; join-completes is always judged. docs/live.md in the package has them all.\n' +
  '  A keepalive the counterpart repeats under a seq it used is a new keepalive, not a re-send: the re-send rules\n' +
  '  count it apart and do not judge it, and the summary counts keepalive echoes and repeats apart from data.\n' +
  'Each rule PASSes, FAILs, or is NOT EXERCISED: it checked nothing (e.g. "we sent no fragments"), which is never a\n' +
  '  pass (JSON status "not-exercised", passed false; JUnit <skipped>). If the counterpart sent nothing at all, the\n' +
  '  first line says so, join-completes fails and every other rule is not exercised.\n' +
  'Exit codes: 0 no rule failed and the join completed, 1 a rule failed (the evidence is printed: times, seqs, hex)\n' +
  '  or, with --require-exercised, a rule was not exercised; 2 bad input.\n' +
  '--duration bounds the whole run: a client stops its traffic and says goodbye at the duration (one that drains\n' +
  '  first, as in fixed mode, two retransmit intervals earlier: 4 s, at most half the run), and the run ends when its\n' +
  '  connection closes or 1 s after the duration, whichever is first.\n' +
  'SIGINT or SIGTERM stops the run early (the goodbye gets 1 s; a second signal skips it); the summary and files\n' +
  '  are still written.\n' +
  "A counterpart's non-stock wire forms (those reimplementations send) reach the transport in their stock form and\n" +
  '  are counted per code.\n' +
  '  A server names on stderr, at once and once per address: a new address whose datagram opens no connection\n' +
  '  (unreadable, or not from a client without a slot: peer id 0xFF), with its bytes; and the first refusal of an\n' +
  '  address past --clients.\n' +
  "--manifest FILE replaces the scenario's checksum manifest: bcsim's form (a traffic.manifest value, or a scenario\n" +
  '  with one) or the JSON a server\'s hash tool writes ({"version_string_hash", "directories": [{"index", "path",\n' +
  '  "filter", "recursive", "dir_name_hash", "files", "subdirs"}]}). A round the file does not list (a hash tool lists\n' +
  "  0 to 3, not 0xFF) keeps bcsim's stand-in, named on stderr. A server given --manifest checks every hash of the\n" +
  "  file's rounds (--checksums hashes) unless --checksums says otherwise, as a real server with a manifest does.\n" +
  'A client whose checksum answer the server refuses (a Boot, a Disconnect, or silence after it) says so first, with\n' +
  "  the round and the hashes it sent, and exits 1: give it the server's manifest with --manifest FILE.\n" +
  'The wire log (every datagram, decrypted, for the analysis and the rules) keeps the first 64 MiB of the session\n' +
  "  (--wire-log-mb N for more), an eighth of it at most for the counterpart's unreadable datagrams; later ones are\n" +
  '  counted in the summary (wire.notLogged), and the rules judge the part kept.\n' +
  'Examples:\n  bcsim peer server --listen 127.0.0.1:22101 --mode stock --duration 30s\n' +
  '  bcsim peer client --connect 127.0.0.1:22101 --mode fixed --duration 20s --expect rules.json --junit out.xml\n' +
  '  bcsim peer client --connect 127.0.0.1:22101 --manifest manifest.json --duration 20s';

/** --pcap, for --help (docs/captures.md#pcapng-export). */
export const PCAP_HELP =
  '--pcap FILE writes a pcapng capture of the run (open it in Wireshark): each datagram a peer sends is one\n' +
  '  Ethernet/IPv4/UDP packet at its send time (captured at the sender), server 10.10.10.1:22101, client k\n' +
  '  10.10.10.(238+k):(22101+k); simulated time 0 is 2002-02-28T00:00:00Z. Payloads are encrypted as the game\n' +
  "  sends them (AlbyRules), plaintext with --pcap-plaintext. Each packet's comment (frame.comment) carries the\n" +
  "  trace's marks ([RETRANSMIT #n], [DEAD-ZONE ACK, pass 2], seq, frag) and DROPPED by link: <cause> or\n" +
  '  REWRITTEN by link rule: removed ... for a datagram the link dropped or cut. The file appears only when the\n' +
  '  run has finished (written beside it as a hidden temporary, then renamed); its folder must exist.';

/** decode FILE, for --help (docs/captures.md). */
export const DECODE_PCAP_HELP =
  'decode FILE reads a pcap or pcapng capture (either byte order, µs or ns; Ethernet with VLAN tags, raw IPv4,\n' +
  "  Linux cooked SLL/SLL2) in bounded memory and prints every BC datagram in the trace's format: time (s from the\n" +
  '  whole second of the first packet; a bcsim export then shows simulated time), direction, the decoded messages\n' +
  '  with [RETRANSMIT #n] for a (seq, fragment) seen before from that sender, and the decrypted bytes. Each UDP\n' +
  '  payload is decrypted (AlbyRules) and decoded; if only its plaintext decodes, that reading is used (an export\n' +
  '  made with --pcap-plaintext). GameSpy packets (starting with \\), other UDP, packets under 2 bytes and\n' +
  '  packets with no IPv4 UDP datagram are counted in the last line (with --json: on stderr; the lines carry\n' +
  "  packet, src, dst and reading besides the trace's fields). A datagram in a reimplementation's wire form\n" +
  '  is shown with one "@offset deviation: ..." line per deviation under it (JSON: deviations,\n' +
  '  stockHex), and the last line counts them. Exit 2 with one line naming the file, the byte\n' +
  '  offset and the reason for a file that is not a capture, or that breaks off (after the datagrams before it).\n' +
  '  (decode --pcap FILE, the old spelling, works in this release only.)\n' +
  '  bcsim decode /tmp/fragment-ack.pcapng | head -20\n' +
  '  bcsim decode capture.pcap --json | jq -c \'select(.from == "client")\'';

/** analyze, for --help (docs/captures.md#reading-captures-decode-and-analyze). */
export const ANALYZE_HELP =
  'Per connection and direction (named by its sender): datagrams, bytes, messages and ACK bytes per datagram,\n' +
  'reliable messages per category with re-sends (the same seq and fragment index again from the same sender),\n' +
  "fragment re-send rounds and their period, keepalives (type 0x00 and 0x02; the server's echoes of the client's\n" +
  'keepalive counted apart, never as re-sends), and the ACKs the sender puts on the wire: keys by number of sends\n' +
  '("3 then silence"), stale ACKs (repeats for a transmission its sender never re-sent afterwards) and late ones\n' +
  "(> 2.5 s after their message). Each end's ACK behaviour, read from its own wire: two-pass (stock: pass 1 sends an\n" +
  'entry up to 3 times, pass 2 only when the gate opens, freed at the 9th send), single-pass (fixed: freed at the\n' +
  '3rd), immediate (each ACK sent once), or unknown when the evidence is thin (fewer than 5 keys, or a rival not\n' +
  "refuted by 3 violations and 5 % of the keys); the evidence is printed. Then each end's ACK-outbox estimate under\n" +
  'that behaviour: an entry lives from the update before the first send of its ACK key to its freeing send; a dead\n' +
  'zone (3 to 8 sends) only for a two-pass end; none for an unknown end (--ack-rule forces one behaviour on every\n' +
  "end). Sampled each second, defined when the capture holds the connection from its start (the client's first\n" +
  "datagram has peer id 0xFF), until its Disconnect, Boot or BootPlayer, 1 s before the capture ends, or the end's\n" +
  'last datagram if it then falls silent. A server that removed the client (Boot, BootPlayer, Disconnect, or silent\n' +
  'for good while the client kept sending) is reported as such. And the fragment-ACK signature verdict of\n' +
  '`bcsim reproduce fragment-ack`.\n' +
  "The client's checksum answers (game opcode 0x21, fragments put together), each with its round and hashes (ref,\n" +
  "dir, each file's name and content hash), to hold against the manifest of a server that refused the client.\n" +
  "Datagrams in a reimplementation's wire forms are measured in their stock form and counted per\n" +
  'direction and deviation (JSON: deviations; a table row when there are any).\n' +
  'With --against, the scenario is run and its datagrams go through the same analyzer: one table, capture and\n' +
  "simulated side by side, plus the model's own ACK-outbox and how far the estimate is from it.\n" +
  'Exit 0; 2 with one line naming the file, byte offset and reason for a bad file (the analysis of the part\n' +
  'before a break is still printed) or a bad flag.\n' +
  'Examples:\n  bcsim run fragment-ack-bug --pcap /tmp/fa.pcapng && bcsim analyze /tmp/fa.pcapng\n' +
  '  bcsim analyze /tmp/fa.pcapng --json\n  bcsim analyze capture.pcapng --against fragment-ack-bug --mode stock';

/** Scheme scenarios with `bcsim compare` (docs/rtype.md#r-type-beside-bc). */
export const SCHEME_COMPARE_HELP =
  'Scheme scenarios (bcsim scenarios lists them; files in scenarios/schemes/, or any JSON file with a "scheme" key):\n' +
  '  rtype-deaths          the R-Type ACK scheme as documented, implemented and repaired: deaths delivered and\n' +
  '                        lost per client, resends per tick, store and pending lists over time, ACKs nobody can\n' +
  '                        attribute, bytes on the wire\n' +
  '  schemes-side-by-side  one workload (critical events + unreliable updates) through BC stock, BC fixed,\n' +
  '                        R-Type documented and R-Type repaired on the same links: delivery, latency, bandwidth, memory\n' +
  '  They take --duration, --seed, --out-dir and --json (the others are refused with one line) and write the same\n' +
  '  four files, to reports/<name> for the defaults, else reports/experiments/<name>-<id>.\n' +
  '  File format: {"name","scheme":"rtype"|"side-by-side","description","duration":"10m","seed","clients",\n' +
  '  "link":{"latencyMs","jitterMs","loss"},"tcpLatencyMs","workload":{…}}; a bad field gets one line, exit 2.\n' +
  '  bcsim compare rtype-deaths\n  bcsim compare schemes-side-by-side --duration 2m --seed 3 --json\n' +
  'Exit codes: 0 written, 1 a --fail-on condition holds (BC scenarios only), 2 bad flag, scenario or --out-dir.';

/** `bcsim reproduce rtype`. */
export const REPRODUCE_RTYPE_HELP =
  'rtype runs the R-Type scheme (4 clients, --loss both ways, 2 deaths/s and bursts of 8) once per defect switch on\n' +
  'alone over repaired and once per defect off alone from implemented, and measures five symptoms in each: no resend\n' +
  'ever, a resend storm, deaths lost under loss, growing lists (with a 5 s downlink outage, so packets expire) and one\n' +
  'client\'s ACK clearing another\'s. Each cell shows the figure its test read; "other symptoms" lists the finer ones.\n' +
  '--duration sets each run (default 60s, at least 10s); --json prints the same as JSON.\n' +
  'Exit 1 if implemented stops losing deaths without a resend, repaired shows a symptom, or a defect no longer does\n' +
  'what the model claims; exit 2 on a bad flag.\n' +
  'Examples:\n  bcsim reproduce rtype\n  bcsim reproduce rtype --loss 0.1 --seed 4 --duration 30s --json';

/** `bcsim conform`, for --help (docs/conform.md). */
export const CONFORM_HELP =
  'Each case opens its own client sessions (a scripted client on its own UDP port: the join, then one fault) and\n' +
  "judges what the server did. A FAIL prints its evidence (time, seq, the datagram in hex, the server's reaction) and\n" +
  'a command that re-runs just that case. NOT EXERCISED means the server never gave the case its chance (the reason\n' +
  'is printed); it is not a pass. The first case runs alone: if the server answers nothing, the first line says so.\n' +
  'Every PASS rests on the server having read our datagram: the datagram that carries the fault also carries a\n' +
  'message of ours that must be ACKed. A FAIL that follows the server removing a session names that removal first,\n' +
  'and the case whose fault caused it is listed before it. A server that checks file hashes needs its manifest.\n' +
  'Exit codes: 0 a case was exercised and none failed; 1 a case failed, nothing was exercised, the server never\n' +
  'answered, or (--require-exercised) a case was not exercised; 2 bad input.\n' +
  'Examples:\n  bcsim conform --server 127.0.0.1:22101\n  bcsim conform --server 127.0.0.1:22101 --cases retransmit,ack-category --junit conform.xml\n' +
  '  bcsim conform --server 127.0.0.1:22101 --require-exercised --junit conform.xml\n' +
  '  bcsim conform --list';

/** The wire forms of real reimplementations (docs/sources.md 30), for decode --help (docs/captures.md#wire-forms-of-real-reimplementations). */
export const WIRE_FORMS_HELP =
  'Wire forms that real reimplementations send are decoded, not refused (docs/captures.md); each deviation is named\n' +
  '  with its byte offset: two-byte-message (00 02), one-byte-length (a flags byte with bits the stock form reads as\n' +
  '  length), disconnect-type-06, ack-flag-bits (e.g. 0x80), connect-without-seq. "stock form:" (JSON: stockHex)\n' +
  "  is the datagram as bcsim's model reads it. A reading that parses in the stock form wins over one that does not.\n" +
  '  bcsim decode 01 01 00 02                  (a two-byte keepalive)\n' +
  '  bcsim decode FF 01 03 08 01 00 00 00 7F 00 (a Connect with a one-byte length and flags byte 0x01)';

/** `bcsim soak --help`, after the options (docs/soak.md). */
export const SOAK_HELP =
  'The clients join and play the scenario as `bcsim peer client --clients N` does. Every datagram is read as it crosses\n' +
  "  our sockets: each minute, per connection, the server's ACK behaviour and ACK-outbox estimate (with its dead zone\n" +
  '  when it is two-pass), stale ACKs, ACK bytes per datagram, re-sends, gaps, our messages given up, ACK latency\n' +
  '  percentiles, datagram and byte rates, and Boots. Then the stock and fixed models of the same scenario and seed\n' +
  "  run for as long and are read the same way, from the clients' side of the wire.\n" +
  'Progress goes to stderr (every 10 s on a terminal, a line a minute otherwise). Ctrl-C or the end of --duration\n' +
  '  writes the report of what was measured, saying if it was cut short; a second Ctrl-C skips the goodbye. A server\n' +
  '  silent for 15 s is reported with its last datagrams, and the soak ends when every connection has timed out.\n' +
  '  With --rejoin, a client the server drops joins again 5 s later on a fresh connection, and the soak goes on:\n' +
  '  the report lists every connection, how long each lasted and how it ended.\n' +
  'Memory stays bounded however long it runs: the minutes are read as they pass, and only their rows are kept.\n' +
  "The server's figures are measured; the models' are predictions, and past 34 minutes (the longest measured\n" +
  '  session) nothing checks them. docs/soak.md says how to read the report.\n' +
  'Exit codes: 0 the report is written, 1 the server never answered (the report says so), 2 bad input.\n' +
  'Examples:\n' +
  '  bcsim soak --server 127.0.0.1:22101 --clients 3 --duration 10m --out-dir soak-report\n' +
  '  bcsim soak --server 127.0.0.1:22101 --scenario server-8 --duration 4h --loss 0.02 --out-dir soak-8\n' +
  '  bcsim soak --server 127.0.0.1:22101 --duration 30m --rejoin --out-dir soak-rejoin';
