// The human tables of `bcsim analyze`: per connection, one column per
// direction (named by its sender), then the ACK-outbox estimate and the
// fragment-ACK verdict; with --against, one column for the capture and one for
// the simulated run, row by row.
import Table from 'cli-table3';
import type { ChalkInstance } from 'chalk';
import { deviationCountsText } from '../codec/index.js';
import type { DeviationCounts } from '../codec/index.js';
import { CRITERIA } from '../reproduce/index.js';
import type { Role } from '../transport/index.js';
import { directionLabel } from './analyze.js';
import type { AckRule, ConnectionAnalysis, DirectionFigures, OutboxEstimate, WireAnalysis } from './analyze.js';
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
  ['reliable low: messages / sent / re-sent', (d) => `${d.reliable.low.messages} / ${d.reliable.low.transmissions} / ${d.reliable.low.retransmissions}`],
  ['reliable high: messages / sent / re-sent', (d) => `${d.reliable.high.messages} / ${d.reliable.high.transmissions} / ${d.reliable.high.retransmissions}`],
  ['fragmented messages / fragments sent / re-sent', (d) => `${d.fragments.messages} / ${d.fragments.transmissions} / ${d.fragments.retransmissions}`],
  ['fragment re-send rounds (complete) / period', (d) => `${d.fragments.rounds} (${d.fragments.completeRounds}) / ${d.fragments.periodS === null ? '–' : `${d.fragments.periodS.toFixed(2)} s`}`],
  ['keepalives type 0x00 / type 0x02', (d) => `${d.keepalives.type00} / ${d.keepalives.type02}`],
  ['ACKs sent / keys / mean sends per key', (d) => `${d.acks.sent} / ${d.acks.keys} / ${num(d.acks.meanSendsPerKey)}`],
  ['ACK keys by sends (sends×keys)', (d) => sendsPerKey(d.acks.sendsPerKey)],
  ['ACK keys sent 3 times, then silence', (d) => String(d.acks.threeThenSilence)],
  ['stale ACKs / repeats while outstanding', (d) => `${d.acks.stale} / ${d.acks.repeatsWhileOutstanding}`],
  ['late ACKs (> 2.5 s) / max ACK age', (d) => `${d.acks.late} / ${d.acks.maxAgeS === null ? '–' : `${d.acks.maxAgeS.toFixed(2)} s`}`],
  ['ACKs of messages not captured', (d) => String(d.acks.forUnseenMessages)],
  ["sender's ACK-outbox estimate peak / final", (_d, o) => `${o.peak} / ${o.final}${o.defined === null ? ' (lower bound)' : ''}`],
  ["sender's dead-zone estimate peak / final", (_d, o) => `${o.deadZone.peak} / ${o.deadZone.final}`],
];

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

function ruleLine(rule: AckRule): string {
  const name = rule.rule === 'two-pass' ? 'two-pass, an entry freed at its 9th send (stock)' : 'single pass, an entry freed at its 3rd send (fixed)';
  const why: Record<AckRule['basis'], string> = {
    forced: 'as forced by --ack-rule',
    runs: `a key was sent ${rule.maxRun} times with no re-send of its message in between`,
    'no-evidence': 'no key was sent more than 3 times in a run: entries past their 3rd send are taken as freed (a lower bound if the sender is stock)',
  };
  return `ACK-outbox rule: ${name}; ${why[rule.basis]}`;
}

function connectionTitle(c: ConnectionAnalysis): string {
  const slot = c.slot === null ? 'no slot' : `slot ${c.slot}`;
  const ended = c.endedS === null ? '' : `, ended ${c.endedS.toFixed(3)} s`;
  return `connection ${c.index}: client ${c.client} (${slot}) · server ${c.server} · ${c.firstS.toFixed(3)}–${c.lastS.toFixed(3)} s${ended}`;
}

function definedLine(c: ConnectionAnalysis): string {
  const d = c.ackOutbox.server.defined;
  if (d === null) return "ACK-outbox estimate: not defined (the capture starts after the connection did); the figures are a lower bound";
  return `ACK-outbox estimate defined from ${d.fromS.toFixed(3)} s to ${d.untilS.toFixed(3)} s`;
}

function signatureLines(c: ConnectionAnalysis, chalk: ChalkInstance): string[] {
  const v = c.fragmentAck;
  const verdict = v.matches ? chalk.bold('matches') : 'does not match';
  const head = `fragment-ACK signature (reproduce fragment-ack, lifetime ${v.lifetimeS} s): ${verdict}${v.seq === null ? ' (no fragmented message from the client)' : `, the client's fragmented message seq ${v.seq}`}`;
  const lines = [head];
  for (const { key, title } of CRITERIA) {
    const cr = v.criteria[key];
    lines.push(`  ${title.padEnd(24)} ${cr.pass ? 'pass' : chalk.yellow('FAIL')}  ${cr.measured}`);
  }
  if (v.eventsCapped) lines.push('  (more than 200,000 re-sends and ACKs of that message: the verdict rests on the first 200,000)');
  return lines;
}

function connectionBlock(c: ConnectionAnalysis, many: boolean, chalk: ChalkInstance): string {
  const up = directionLabel(c, 'client', many);
  const down = directionLabel(c, 'server', many);
  const table = new Table({ head: ['', up, down], style: STYLE, chars: COMPACT });
  for (const [label, get] of ROWS) table.push([label, get(c.clientToServer, c.ackOutbox.client), get(c.serverToClient, c.ackOutbox.server)]);
  // Shown only when some end sent a reimplementation's wire form (DECISIONS.md 30).
  if (c.clientToServer.deviations.datagrams + c.serverToClient.deviations.datagrams > 0) {
    table.push(['datagrams with deviations (DECISIONS.md 30)', deviationsCell(c.clientToServer.deviations), deviationsCell(c.serverToClient.deviations)]);
  }
  return [connectionTitle(c), table.toString(), definedLine(c), ...signatureLines(c, chalk)].join('\n');
}

/** `bcsim analyze FILE`. */
export function renderCaptureAnalysis(a: CaptureAnalysis, chalk: ChalkInstance): string {
  const s = a.source;
  const lines = [
    `${chalk.bold(s.file)}: ${s.format}, ${s.sizeBytes} bytes, ${a.endS.toFixed(3)} s${s.origin === null ? '' : ` from ${s.origin}`}${s.complete ? '' : chalk.yellow(' (incomplete: reading stopped at an error)')}`,
    `packets: ${censusLine(a.packets)}`,
    ruleLine(a.ackRule),
  ];
  if (a.connections.length === 0) lines.push('no BC connection in the capture');
  const many = a.connections.length > 1;
  for (const c of a.connections) lines.push('', connectionBlock(c, many, chalk));
  return `${lines.join('\n')}\n`;
}

/** Capture connections paired with simulated ones: by slot where both have it, else in order. */
export function pairConnections(capture: WireAnalysis, simulated: WireAnalysis): Array<{ capture: number; simulated: number | null }> {
  const used = new Set<number>();
  const pairs = capture.connections.map((c) => {
    const bySlot = c.slot === null ? undefined : simulated.connections.find((s) => s.slot === c.slot && !used.has(s.index));
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
export function renderAgainst(capture: CaptureAnalysis, simulated: SimulatedAnalysis, chalk: ChalkInstance): string {
  const s = capture.source;
  const sim = simulated.source;
  const lines = [
    `${chalk.bold(s.file)} (${s.format}, ${capture.endS.toFixed(3)} s) against ${chalk.bold(sim.scenario)} mode ${sim.mode} seed ${sim.seed}, ${sim.durationS} s simulated (trace ${sim.traceHash.slice(0, 16)})`,
    `capture packets: ${censusLine(capture.packets)}`,
    `simulated datagrams: ${simulated.packets.bc}`,
    `capture:   ${ruleLine(capture.ackRule)}`,
    `simulated: ${ruleLine(simulated.ackRule)}`,
  ];
  const pairs = pairConnections(capture, simulated);
  const many = capture.connections.length > 1 || simulated.connections.length > 1;
  if (pairs.length === 0) lines.push('', 'no BC connection in the capture');
  for (const pair of pairs) {
    const c = capture.connections.find((x) => x.index === pair.capture) as ConnectionAnalysis;
    const m = pair.simulated === null ? null : (simulated.connections.find((x) => x.index === pair.simulated) ?? null);
    const truth = pair.simulated === null ? null : (simulated.truth.find((t) => t.index === pair.simulated) ?? null);
    lines.push('', `${connectionTitle(c)}${m === null ? ' · no simulated connection to pair with' : ` · simulated client ${m.index}${m.slot === null ? '' : ` (slot ${m.slot})`}`}`);
    const table = new Table({ head: ['', 'capture', 'simulated'], style: STYLE, chars: COMPACT });
    for (const { from, key } of DIRECTIONS) {
      const dir = directionLabel(c, from, many);
      for (const [label, get] of ROWS) {
        table.push([`${dir} ${label}`, get(c[key], c.ackOutbox[from]), m === null ? '–' : get(m[key], m.ackOutbox[from])]);
      }
      if (truth !== null) table.push(...truthRows(dir, from, truth));
    }
    const verdict = (x: ConnectionAnalysis | null) => (x === null ? '–' : x.fragmentAck.matches ? 'matches' : 'does not match');
    table.push(['fragment-ACK signature', verdict(c), verdict(m)]);
    for (const { key, title } of CRITERIA) {
      const show = (x: ConnectionAnalysis | null) => (x === null ? '–' : `${x.fragmentAck.criteria[key].pass ? 'pass' : 'FAIL'} ${x.fragmentAck.criteria[key].measured}`);
      table.push([`  ${title}`, show(c), show(m)]);
    }
    lines.push(table.toString(), definedLine(c));
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
    [`${dir} estimate against the model`, '', a.samples === 0 ? 'no defined samples' : `max |diff| ${a.maxAbsDiff} over ${a.samples} samples (${a.beyondOne} beyond ±1)`],
  ];
}
