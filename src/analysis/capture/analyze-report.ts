// The human tables of `bcsim analyze`: per connection, one column per
// direction (named by its sender), then the ACK-outbox estimate and the
// fragment-ACK verdict; with --against, one column for the capture and one for
// the simulated run, row by row. Each end's ACK-outbox figures follow the ACK
// behaviour its own wire shows (ack-behaviour.ts), with the evidence below.
import Table from 'cli-table3';
import type { TerminalStyle } from '../../core/output/index.js';
import { deviationCountsText } from '../../core/codec/index.js';
import type { DeviationCounts } from '../../core/codec/index.js';
import { CRITERIA } from '../reproduce/index.js';
import { checksumAnswerHead, checksumAnswerLines } from '../../model/traffic/index.js';
import type { Role } from '../../model/transport/index.js';
import { directionLabel } from './analyze.js';
import type { AckRuleName, ConnectionAnalysis, DirectionFigures, OutboxEstimate, WireAnalysis } from './analyze.js';
import { behaviourName } from './ack-behaviour.js';
import { removalText } from './connection-end.js';
import type { SimulatedAnalysis, SimulatedConnectionTruth } from './analyze-against.js';
import type { CaptureAnalysis } from './analyze-capture.js';
import { censusLine } from './analyze-capture.js';

const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };
const STYLE = { head: [], border: [] };

type Row = readonly [string, (d: DirectionFigures, outbox: OutboxEstimate) => string];

const ROWS: readonly Row[] = [
  ['datagrams / bytes', (d) => `${d.datagrams} / ${d.bytes}`],
  ['messages per datagram mean / max', (d) => `${num(d.messagesPerDatagram.mean)} / ${d.messagesPerDatagram.max}`],
  ['ACK bytes per datagram mean / max', (d) => `${num(d.ackBytesPerDatagram.mean)} / ${d.ackBytesPerDatagram.max}`],
  ['unreliable messages', (d) => String(d.unreliable)],
  [
    'reliable low: messages / sent / re-sent',
    (d) => `${d.reliable.low.messages} / ${d.reliable.low.transmissions} / ${d.reliable.low.retransmissions}`,
  ],
  [
    'reliable high: messages / sent / re-sent',
    (d) => `${d.reliable.high.messages} / ${d.reliable.high.transmissions} / ${d.reliable.high.retransmissions}`,
  ],
  [
    'fragmented messages / fragments sent / re-sent',
    (d) => `${d.fragments.messages} / ${d.fragments.transmissions} / ${d.fragments.retransmissions}`,
  ],
  [
    'fragment re-send rounds (complete) / period',
    (d) =>
      `${d.fragments.rounds} (${d.fragments.completeRounds}) / ${d.fragments.periodS === null ? '–' : `${d.fragments.periodS.toFixed(2)} s`}`,
  ],
  ['keepalives type 0x00 / type 0x02', (d) => `${d.keepalives.type00} / ${d.keepalives.type02}`],
  ['keepalive echoes (seq re-used)', (d) => `${d.keepalives.echoes} (${d.keepalives.echoSeqReused})`],
  ['reliable seq restarts (first)', (d) => seqRestarts(d)],
  ['ACKs sent / keys / mean sends per key', (d) => `${d.acks.sent} / ${d.acks.keys} / ${num(d.acks.meanSendsPerKey)}`],
  ['ACK keys by sends (sends×keys)', (d) => sendsPerKey(d.acks.sendsPerKey)],
  ['ACK keys sent 3 times, then silence', (d, o) => threeThenSilence(d, o)],
  ['stale ACKs / repeats while outstanding', (d) => `${d.acks.stale} / ${d.acks.repeatsWhileOutstanding}`],
  [
    'late ACKs (> 2.5 s) / max ACK age',
    (d) => `${d.acks.late} / ${d.acks.maxAgeS === null ? '–' : `${d.acks.maxAgeS.toFixed(2)} s`}`,
  ],
  ['ACKs of messages not captured', (d) => String(d.acks.forUnseenMessages)],
  ["sender's ACK behaviour", (_d, o) => `${o.behaviour.rule}${o.behaviour.basis === 'forced' ? ' (forced)' : ''}`],
  [
    "sender's ACK-outbox estimate peak / final",
    (_d, o) =>
      o.peak === null
        ? 'none: behaviour unknown'
        : `${o.peak} / ${o.final}${o.defined === null ? ' (lower bound)' : ''}`,
  ],
  [
    "sender's dead-zone estimate peak / final",
    (_d, o) => (o.deadZone === null ? `none (${o.behaviour.rule})` : `${o.deadZone.peak} / ${o.deadZone.final}`),
  ],
];

/** Only a two-pass end's "3 then silence" is the dead zone's signature; a removal's silence is counted apart. */
function threeThenSilence(d: DirectionFigures, o: OutboxEstimate): string {
  const removal = d.acks.silencedByRemoval > 0 ? ` (+${d.acks.silencedByRemoval} silenced by the removal)` : '';
  const kind =
    d.acks.threeThenSilence > 0 && o.behaviour.rule !== 'two-pass' ? ` (${o.behaviour.rule}: not a dead zone)` : '';
  return `${d.acks.threeThenSilence}${kind}${removal}`;
}

function num(value: number | null): string {
  if (value === null) return '–';
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

function deviationsCell(counts: DeviationCounts): string {
  return counts.datagrams === 0 ? '0' : `${counts.datagrams}: ${deviationCountsText(counts)}`;
}

function sendsPerKey(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([sends, keys]) => `${sends}×${keys}`);
  return parts.length === 0 ? '–' : parts.join(' ');
}

function forcedLine(forced: AckRuleName | null): string {
  return forced === null
    ? "ACK behaviour: read from each end's own wire"
    : `ACK behaviour: ${forced} for every end, forced by --ack-rule`;
}

function connectionTitle(c: ConnectionAnalysis): string {
  const slot = c.slot === null ? 'no slot' : `slot ${c.slot}`;
  const ended = c.endedS === null ? '' : `, ended ${c.endedS.toFixed(3)} s`;
  return `connection ${c.index}: client ${c.client} (${slot}) · server ${c.server} · ${c.firstS.toFixed(3)}–${c.lastS.toFixed(3)} s${ended}`;
}

/** Per end: its ACK behaviour with the evidence, and where its estimate is defined; then the removal, if any. */
function outboxLines(c: ConnectionAnalysis, many: boolean): string[] {
  const lines: string[] = [];
  for (const from of ['client', 'server'] as const) {
    const o = c.ackOutbox[from];
    const b = o.behaviour;
    const estimate =
      b.rule === 'unknown'
        ? 'no ACK-outbox estimate'
        : o.defined === null
          ? 'ACK-outbox estimate not defined (the capture starts after the connection did): a lower bound'
          : `ACK-outbox estimate defined from ${o.defined.fromS.toFixed(3)} s to ${o.defined.untilS.toFixed(3)} s`;
    lines.push(
      `${directionLabel(c, from, many)} ACK behaviour: ${behaviourName(b)}${b.basis === 'forced' ? '' : ` (${b.summary})`}; ${estimate}`,
    );
  }
  if (c.removal !== null) lines.push(removalText(c.removal));
  return lines;
}

function signatureLines(c: ConnectionAnalysis, style: TerminalStyle): string[] {
  const v = c.fragmentAck;
  const verdict = v.matches ? style.bold('matches') : 'does not match';
  const head = `fragment-ACK signature (reproduce fragment-ack, lifetime ${v.lifetimeS} s): ${verdict}${v.seq === null ? ' (no fragmented message from the client)' : `, the client's fragmented message seq ${v.seq}`}`;
  const lines = [head];
  for (const { key, title } of CRITERIA) {
    const cr = v.criteria[key];
    lines.push(`  ${title.padEnd(24)} ${cr.pass ? 'pass' : style.yellow('FAIL')}  ${cr.measured}`);
  }
  if (v.eventsCapped)
    lines.push('  (more than 200,000 re-sends and ACKs of that message: the verdict rests on the first 200,000)');
  return lines;
}

/** Lines of files shown per checksum answer; the JSON lists more. */
const SHOWN_ANSWER_LINES = 8;

/** The client's checksum answers with their hashes, to hold against a server's manifest. */
function checksumLines(c: ConnectionAnalysis): string[] {
  const { answers, notKept } = c.checksumAnswers;
  if (answers.length === 0) return [];
  const lines = ["checksum answers the client sent (hashes to hold against the server's manifest):"];
  for (const a of answers) {
    const where = `${a.atS.toFixed(3)} s, seq ${a.seq}${a.fragments > 1 ? ` (${a.fragments} fragments)` : ''}`;
    if (a.hashes === null) lines.push(`  ${where}: does not parse at ${a.error}`);
    else
      lines.push(
        `  ${where}: ${checksumAnswerHead(a.hashes)}`,
        ...checksumAnswerLines(a.hashes, '    ', SHOWN_ANSWER_LINES),
      );
  }
  if (notKept > 0) lines.push(`  … and ${notKept} more answers, not kept`);
  return lines;
}

function connectionBlock(c: ConnectionAnalysis, many: boolean, style: TerminalStyle): string {
  const up = directionLabel(c, 'client', many);
  const down = directionLabel(c, 'server', many);
  const table = new Table({ head: ['', up, down], style: STYLE, chars: COMPACT });
  for (const [label, get] of ROWS)
    table.push([label, get(c.clientToServer, c.ackOutbox.client), get(c.serverToClient, c.ackOutbox.server)]);
  // Shown only when some end sent a reimplementation's wire form (docs/sources.md 30).
  if (c.clientToServer.deviations.datagrams + c.serverToClient.deviations.datagrams > 0) {
    table.push([
      'datagrams with deviations (docs/sources.md 30)',
      deviationsCell(c.clientToServer.deviations),
      deviationsCell(c.serverToClient.deviations),
    ]);
  }
  return [
    connectionTitle(c),
    table.toString(),
    ...outboxLines(c, many),
    ...checksumLines(c),
    ...signatureLines(c, style),
  ].join('\n');
}

/** `bcsim analyze FILE`. */
export function renderCaptureAnalysis(a: CaptureAnalysis, style: TerminalStyle): string {
  const s = a.source;
  const lines = [
    `${style.bold(s.file)}: ${s.format}, ${s.sizeBytes} bytes, ${a.endS.toFixed(3)} s${s.origin === null ? '' : ` from ${s.origin}`}${s.complete ? '' : style.yellow(' (incomplete: reading stopped at an error)')}`,
    `packets: ${censusLine(a.packets)}`,
    forcedLine(a.ackRuleForced),
  ];
  if (a.connections.length === 0) lines.push('no BC connection in the capture');
  const many = a.connections.length > 1;
  for (const c of a.connections) lines.push('', connectionBlock(c, many, style));
  return `${lines.join('\n')}\n`;
}

/** Capture connections paired with simulated ones: by slot where both have it, else in order. */
export function pairConnections(
  capture: WireAnalysis,
  simulated: WireAnalysis,
): Array<{ capture: number; simulated: number | null }> {
  const used = new Set<number>();
  const pairs = capture.connections.map((c) => {
    const bySlot =
      c.slot === null ? undefined : simulated.connections.find((s) => s.slot === c.slot && !used.has(s.index));
    if (bySlot !== undefined) used.add(bySlot.index);
    return { capture: c.index, simulated: bySlot?.index ?? null };
  });
  for (const p of pairs) {
    if (p.simulated !== null) continue;
    const next = simulated.connections.find((s) => !used.has(s.index));
    if (next !== undefined) {
      used.add(next.index);
      p.simulated = next.index;
    }
  }
  return pairs;
}

const DIRECTIONS: ReadonlyArray<{ from: Role; key: 'clientToServer' | 'serverToClient' }> = [
  { from: 'client', key: 'clientToServer' },
  { from: 'server', key: 'serverToClient' },
];

/** `bcsim analyze FILE --against SCENARIO`: capture and simulation side by side. */
export function renderAgainst(capture: CaptureAnalysis, simulated: SimulatedAnalysis, style: TerminalStyle): string {
  const s = capture.source;
  const sim = simulated.source;
  const lines = [
    `${style.bold(s.file)} (${s.format}, ${capture.endS.toFixed(3)} s) against ${style.bold(sim.scenario)} mode ${sim.mode} seed ${sim.seed}, ${sim.durationS} s simulated (trace ${sim.traceHash.slice(0, 16)})`,
    `capture packets: ${censusLine(capture.packets)}`,
    `simulated datagrams: ${simulated.packets.bc}`,
    forcedLine(capture.ackRuleForced),
  ];
  const pairs = pairConnections(capture, simulated);
  const many = capture.connections.length > 1 || simulated.connections.length > 1;
  if (pairs.length === 0) lines.push('', 'no BC connection in the capture');
  for (const pair of pairs) {
    const c = capture.connections.find((x) => x.index === pair.capture) as ConnectionAnalysis;
    const m = pair.simulated === null ? null : (simulated.connections.find((x) => x.index === pair.simulated) ?? null);
    const truth = pair.simulated === null ? null : (simulated.truth.find((t) => t.index === pair.simulated) ?? null);
    lines.push(
      '',
      `${connectionTitle(c)}${m === null ? ' · no simulated connection to pair with' : ` · simulated client ${m.index}${m.slot === null ? '' : ` (slot ${m.slot})`}`}`,
    );
    const table = new Table({ head: ['', 'capture', 'simulated'], style: STYLE, chars: COMPACT });
    for (const { from, key } of DIRECTIONS) {
      const dir = directionLabel(c, from, many);
      for (const [label, get] of ROWS) {
        table.push([
          `${dir} ${label}`,
          get(c[key], c.ackOutbox[from]),
          m === null ? '–' : get(m[key], m.ackOutbox[from]),
        ]);
      }
      if (truth !== null) table.push(...truthRows(dir, from, truth));
    }
    const verdict = (x: ConnectionAnalysis | null) =>
      x === null ? '–' : x.fragmentAck.matches ? 'matches' : 'does not match';
    table.push(['fragment-ACK signature', verdict(c), verdict(m)]);
    for (const { key, title } of CRITERIA) {
      const show = (x: ConnectionAnalysis | null) =>
        x === null
          ? '–'
          : `${x.fragmentAck.criteria[key].pass ? 'pass' : 'FAIL'} ${x.fragmentAck.criteria[key].measured}`;
      table.push([`  ${title}`, show(c), show(m)]);
    }
    lines.push(table.toString(), ...outboxLines(c, many));
  }
  return `${lines.join('\n')}\n`;
}

function truthRows(dir: string, from: Role, truth: SimulatedConnectionTruth): string[][] {
  const g = truth.gauges[from];
  const peak = g.ackOutbox.length === 0 ? 0 : Math.max(...g.ackOutbox);
  const final = g.ackOutbox.length === 0 ? 0 : g.ackOutbox[g.ackOutbox.length - 1];
  const a = truth.agreement[from];
  return [
    [`${dir} sender's ACK-outbox in the model peak / final`, '', `${peak} / ${final} (sampled each second)`],
    [
      `${dir} estimate against the model`,
      '',
      a.samples === 0
        ? 'no defined samples'
        : `max |diff| ${a.maxAbsDiff} over ${a.samples} samples (${a.beyondOne} beyond ±1)`,
    ],
  ];
}

/** A count that started again before the u16 wrap: how often, and the first time (seq from -> to). */
function seqRestarts(d: DirectionFigures): string {
  const f = d.seqRestarts.first;
  if (f === null) return '0';
  return `${d.seqRestarts.count} (${f.category} ${f.fromSeq} -> ${f.toSeq} at ${f.atS.toFixed(1)} s)`;
}
