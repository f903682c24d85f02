// "What this shows": sentences generated from the numbers of a comparison, so
// the report states its differences in figures rather than adjectives.
import { formatSeconds, msToSeconds, usToSeconds, msToUsUnrounded } from '../../core/engine/index.js';
import type { Phase } from '../../model/traffic/index.js';
import type { Role } from '../../model/transport/index.js';
import type { Comparison, ComparedRun } from './compare.js';
import {
  connectionKeys,
  connectionsOf,
  isMultiClient,
  keyLabel,
  perConnectionOutboxMax,
  worstConnection,
} from './connections.js';
import { bytesLabel, durationLabel, fmt } from '../../core/output/index.js';
import { flipSentences, predictionSentence } from './evidence-notes.js';

/** ack-outbox-deadlock.md §5 projections, for the calibration sentence. */
const DOC_CLAIMS =
  '~600 stuck entries at 30 min, ~2,400 at 2 h, ~6,000 at 4 h and 144,000 comparisons/s at ~60 reliable/s';

export function findings(comparison: Comparison): string[] {
  const lost = lossSentence(comparison);
  const stock = comparison.runs.find((r) => r.spec.label === 'stock');
  const fixed = comparison.runs.find((r) => r.spec.label === 'fixed');
  // Lost messages are always mentioned, whatever the columns.
  if (!stock || !fixed) return lost === null ? [] : [lost];
  const seconds = usToSeconds(comparison.durationUs);
  const s = stock.summary.peers;
  const f = fixed.summary.peers;
  const out: string[] = [];
  const reliableRate = stock.summary.delivery.reliableSent / seconds;
  const prediction = predictionSentence(comparison);
  if (prediction !== null) out.push(prediction);

  const multi = isMultiClient(comparison);
  if (multi) {
    out.push(
      `Over ${durationLabel(seconds)} of ${comparison.scenario.name} (seed ${comparison.seed}, ${stock.summary.session.clients} clients, ${fmt(reliableRate)} reliable messages/s on average), ` +
        `the stock ACK-outbox peaked at ${s.server.ackOutbox.max} entries in the server's total over its connections and ${s.client.ackOutbox.max} over the clients together, ` +
        `with up to ${s.server.ackOutboxDeadZone.max} and ${s.client.ackOutboxDeadZone.max} stranded in the dead zone; ` +
        `fixed peaked at ${f.server.ackOutbox.max} and ${f.client.ackOutbox.max} with none stranded.`,
    );
    out.push(perConnectionSentence(comparison, stock, fixed));
  } else {
    out.push(
      `Over ${durationLabel(seconds)} of ${comparison.scenario.name} (seed ${comparison.seed}, ${fmt(reliableRate)} reliable messages/s on average), ` +
        `the stock ACK-outbox peaked at ${s.server.ackOutbox.max} entries on the server and ${s.client.ackOutbox.max} on the client, ` +
        `with up to ${s.server.ackOutboxDeadZone.max} and ${s.client.ackOutboxDeadZone.max} stranded in the dead zone; ` +
        `fixed peaked at ${f.server.ackOutbox.max} and ${f.client.ackOutbox.max} with none stranded.`,
    );
  }
  if (lost !== null) out.push(lost);
  const stockDedup = Math.max(s.server.dedupComparisons.maxPerMessage, s.client.dedupComparisons.maxPerMessage);
  const stockPerSecond = Math.max(s.server.dedupComparisons.maxPerSecond, s.client.dedupComparisons.maxPerSecond);
  const fixedDedup = Math.max(f.server.dedupComparisons.maxPerMessage, f.client.dedupComparisons.maxPerMessage);
  out.push(
    `Each incoming reliable message cost the stock linear dedup scan up to ${fmt(stockDedup)} comparisons ` +
      `(${fmt(s.server.dedupComparisons.perReliableMessage)} on average at the server, ${fmt(stockPerSecond)} per second at peak); ` +
      `the fixed hashed index costs ${fixedDedup} per message.`,
  );
  const memStock = Math.max(s.server.memoryBytes.max, s.client.memoryBytes.max);
  const memFixed = Math.max(f.server.memoryBytes.max, f.client.memoryBytes.max);
  out.push(
    `Modelled transport memory peaked at ${bytesLabel(memStock)} in stock and ${bytesLabel(memFixed)} in fixed.`,
  );
  const ackStock = Math.max(s.server.ackBytesPerPacketMax, s.client.ackBytesPerPacketMax);
  const ackFixed = Math.max(f.server.ackBytesPerPacketMax, f.client.ackBytesPerPacketMax);
  const deferredStock = s.server.deferredMessages + s.client.deferredMessages;
  const deferredFixed = f.server.deferredMessages + f.client.deferredMessages;
  const meanAck = (p: typeof s) =>
    (p.server.ackBytesSent + p.client.ackBytesSent) / Math.max(1, p.server.packetsSent + p.client.packetsSent);
  out.push(
    `ACKs took up to ${ackStock} bytes of a 512-byte datagram in stock and ${ackFixed} in fixed ` +
      `(${fmt(meanAck(s))} and ${fmt(meanAck(f))} bytes per datagram on average; the write-ups report ~132–190 B with 33–38 entries, docs/sources.md 25, which no reading reaches at the measured rates: \`bcsim reproduce ack-outbox\`); ` +
      `${fmt(deferredStock)} game messages waited for a later update because a stock datagram was full (fixed: ${fmt(deferredFixed)}).`,
  );
  const fragStock = s.client.fragmentRetransmits + s.server.fragmentRetransmits;
  const lifetime =
    stock.summary.switches.messageLifetime === 'peer-timeout'
      ? ' until the stuck message was older than the 45 s peer timeout'
      : ' for as long as the session lasted';
  if (fragStock > 0) {
    out.push(
      `Stock re-sent fragments ${fmt(fragStock)} times${lifetime}, about ${bytesLabel(fragStock * 340)} of wire waste from a message the server had ACKed correctly ` +
        `(the bug documents' account, which docs/sources.md 27 weakens: see the readings below); ` +
        `fixed re-sent ${fmt(f.client.fragmentRetransmits + f.server.fragmentRetransmits)}.`,
    );
  }
  const growth = growthSentence(stock, fixed, multi);
  out.push(prediction === null ? growth : `Prediction: ${growth.charAt(0).toLowerCase()}${growth.slice(1)}`);
  const stranded = [s.server.ackOutboxDeadZone.final, s.client.ackOutboxDeadZone.final];
  if (stranded[0] + stranded[1] > 0) {
    out.push(
      `At the end the stock dead zone still held ${stranded[0]} entries on the server${multi ? ' (total)' : ''} and ${stranded[1]} on the client${multi ? 's' : ''}: ` +
        `only what opens the pass-2 gate (a write in steps 1–3, an idle keepalive or its ACK among them, or a Disconnect) moves them (ack-outbox-deadlock.md §2).`,
    );
  }
  out.push(readingsSentence(stock, comparison.scenario.traffic.phases));
  out.push(...flipSentences(comparison));
  out.push(
    `For calibration: ack-outbox-deadlock.md §5 projects ${DOC_CLAIMS}; the measured 34-minute session peaked at 20–33 entries (docs/sources.md T1). ` +
      (multi
        ? `At this scenario's traffic the model's stock outbox peaked at ${perConnectionOutboxMax(stock.summary)} entries on its worst connection` // the capture's figure is per connection
        : `At this scenario's traffic the model's stock outbox peaked at ${Math.max(s.server.ackOutbox.max, s.client.ackOutbox.max)} entries`) +
      `${reliableRate < 20 ? ', on the measured side of that gap' : ', the heavy regime the projection assumes'}.`,
  );
  return out;
}

/**
 * Whenever a run lost reliable messages: how many, per run, how many of them
 * were swallowed, and the first one (the earliest lost or swallowed in the
 * run's anomaly list) with its seq and times. null when no run lost any.
 */
function lossSentence(comparison: Comparison): string | null {
  const runs = comparison.runs;
  if (runs.every((r) => r.summary.delivery.reliableLost === 0)) return null;
  const counts = runs.map((r) => {
    const d = r.summary.delivery;
    if (d.reliableLost === 0) return `${r.spec.label} none`;
    const swallowed =
      d.reliableSwallowed > 0
        ? ` (${fmt(d.reliableSwallowed)} of them swallowed: ACKed by the receiver, never delivered)`
        : '';
    return `${r.spec.label} ${fmt(d.reliableLost)}${swallowed}`;
  });
  const firsts: string[] = [];
  for (const r of runs) {
    const a = r.summary.delivery.anomalies.list.find((x) => x.kind === 'lost' || x.kind === 'swallowed');
    if (a === undefined) continue;
    const sent = `sent at ${seconds(a.sentAtMs)}`;
    const fate =
      a.atMs === null
        ? sent
        : a.kind === 'lost'
          ? `${sent} and given up at ${seconds(a.atMs)}`
          : `${sent}, ACKed at ${seconds(a.atMs)} and never delivered`;
    firsts.push(`in ${r.spec.label}, the ${a.from}'s ${a.category}-category seq ${a.seq}, ${fate}`);
  }
  const first = firsts.length === 0 ? '' : ` The first lost: ${firsts.join('; ')}.`;
  return `Reliable messages were lost: ${counts.join('; ')}.${first} summary.json lists each run's lost, duplicated and out-of-order messages under delivery.anomalies.`;
}

function seconds(ms: number): string {
  return `${formatSeconds(msToUsUnrounded(ms))} s`;
}

/** The phases with update periods of their own (docs/scenarios.md), e.g. " (join: 1 and 1 ms)"; "" when none. */
function phasePeriods(phases: readonly Phase[], run: Readonly<Record<Role, number>>): string {
  const own = phases.flatMap((phase) =>
    'updatePeriodMs' in phase && phase.updatePeriodMs
      ? [
          `${phase.kind}: ${fmt(phase.updatePeriodMs.server ?? run.server)} and ${fmt(phase.updatePeriodMs.client ?? run.client)} ms`,
        ]
      : [],
  );
  return own.length === 0 ? '' : ` (${[...new Set(own)].join('; ')})`;
}

/** Every stock verdict rests on modelling choices; name them (docs/sources.md 25-29). */
function readingsSentence(stock: ComparedRun, phases: readonly Phase[]): string {
  const sw = stock.summary.switches;
  const settings = stock.summary.settings;
  const periods = settings.params.updatePeriodMs;
  const ka = sw.keepalive;
  const keepalive =
    `the idle keepalive is ${ka.reliable ? 'reliable' : 'unreliable'} ${ka.message}${ka.message === 'type-0x00' && ka.reliable ? ' (the captured 22-byte form)' : ''}, ` +
    `sent ${ka.path === 'outside-queues' ? 'outside the queues (it never opens the gate)' : 'through the first-send queue (it opens the gate)'}, its echo ${ka.echoPath === 'outside-queues' ? 'after pass 2' : 'queued'}`;
  const fragment =
    sw.fragmentAckCause === 'matcher-rejects-fragments'
      ? 'fragmentAckCause matcher-rejects-fragments (one write-up\'s account of the re-sends; `bcsim reproduce fragment-ack` ranks "no fragment is ever re-sent" close behind)'
      : `fragmentAckCause ${sw.fragmentAckCause}`;
  return (
    `These stock figures rest on the readings \`bcsim reproduce ack-outbox\` ranks first: messageLifetime ${sw.messageLifetime}; ${keepalive}; ` +
    `the pass-2 gate opened by ${sw.gateOpeners.join(', ')} per ${sw.gateScope}; the Connect ACKed ${sw.connectAck === 'after-reply' ? 'one update after the connect reply' : 'never'}; ` +
    `a peer that sent its Disconnect removed ${fmt(msToSeconds(settings.params.disconnectedPeerLingerMs))} s later; ${fragment}; ` +
    `network updates every ${fmt(periods.server)} ms (server) and ${fmt(periods.client)} ms (client)${phasePeriods(phases, periods)}, ${fmt(settings.params.datagramsPerUpdate)} datagram per update.`
  );
}

/**
 * Each connection's ACK-outbox peak, server side and client side, in
 * stock and fixed, the server's total beside them, and the charted worst connection.
 */
function perConnectionSentence(comparison: Comparison, stock: ComparedRun, fixed: ComparedRun): string {
  const keys = connectionKeys(comparison, 'client');
  const peaks = (run: ComparedRun, side: 'server' | 'client') => list(keys.map((k) => connectionPeak(run, side, k)));
  const worst = (run: ComparedRun) => worstConnection(run)?.label ?? 'none';
  return (
    `Per connection (${keys.every((k) => /^\d+$/.test(k)) ? `slots ${list(keys)}` : list(keys.map(keyLabel))}), the stock ACK-outbox peaked at ${peaks(stock, 'server')} entries on the server's side and ${peaks(stock, 'client')} on the clients; ` +
    `fixed at ${peaks(fixed, 'server')} (server's side) and ${peaks(fixed, 'client')} (clients). ` +
    `The server's total (${stock.summary.peers.server.ackOutbox.max} in stock, ${fixed.summary.peers.server.ackOutbox.max} in fixed) is the peak of the sum over its connections, sampled once a second; ` +
    `report.html charts it beside the worst connection, the one whose server-side outbox peaked highest (stock: ${worst(stock)}, fixed: ${worst(fixed)}).`
  );
}

function connectionPeak(run: ComparedRun, side: 'server' | 'client', key: string): string {
  const c = connectionsOf(run.summary, side)[key];
  return c === undefined ? '–' : fmt(c.ackOutbox.max);
}

/** "a", "a and b", "a, b and c". */
function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function growthSentence(stock: ComparedRun, fixed: ComparedRun, multi: boolean): string {
  const leaks = (run: ComparedRun) => run.trends.filter((t) => t.trend.leak);
  const stockLeaks = leaks(stock);
  const fixedLeaks = leaks(fixed);
  const outbox = stock.trends.find((t) => t.peer === 'server' && t.metric === 'ackOutbox');
  const slope = outbox ? `${fmt(outbox.trend.slopePerHour)} entries/h` : 'n/a';
  if (stockLeaks.length === 0 && fixedLeaks.length === 0) {
    return `No queue kept growing over the last half of the run in either mode (stock server${multi ? '-total' : ''} ACK-outbox slope ${slope}): here the degradation is bounded, not a leak.`;
  }
  const list = (xs: typeof stockLeaks) =>
    xs.map((t) => `${t.peer} ${t.metric} (+${fmt(t.trend.slopePerHour)}/h)`).join(', ');
  return `Over the last half of the run these queues kept growing, flagged as leaks: stock ${stockLeaks.length ? list(stockLeaks) : 'none'}; fixed ${fixedLeaks.length ? list(fixedLeaks) : 'none'}.`;
}

/**
 * The report's title: the scenario and what this run found about the stock
 * ACK-outbox, from the same leak verdicts as growthSentence, e.g.
 * "long-session: the stock ACK-outbox stays bounded (peak 84 entries), no leak".
 * Without a stock and a fixed column, "bcsim report: <scenario>".
 */
export function headline(comparison: Comparison): string {
  const name = comparison.scenario.name;
  const stock = comparison.runs.find((r) => r.spec.label === 'stock');
  const fixed = comparison.runs.find((r) => r.spec.label === 'fixed');
  if (!stock || !fixed) return `bcsim report: ${name}`;
  const outboxLeaks = (run: ComparedRun) => run.trends.filter((t) => t.metric === 'ackOutbox' && t.trend.leak);
  const stockLeaks = outboxLeaks(stock);
  const fixedLeaks = outboxLeaks(fixed).length > 0;
  if (stockLeaks.length === 0) {
    const peak = Math.max(stock.summary.peers.server.ackOutbox.max, stock.summary.peers.client.ackOutbox.max);
    const bounded = `${name}: the stock ACK-outbox stays bounded (peak ${fmt(peak)} entries)`;
    return fixedLeaks ? `${bounded}; fixed's grows without bound` : `${bounded}, no leak`;
  }
  const slope = Math.max(...stockLeaks.map((t) => t.trend.slopePerHour));
  return `${name}: the stock ACK-outbox grows without bound (+${fmt(slope)} entries/h)${fixedLeaks ? "; fixed's too" : ''}`;
}

/**
 * Three plain sentences before the findings: what was run, what stock did,
 * what fixed did (the ACK-outbox's peak, whether it kept growing, what was
 * lost). Empty without a stock and a fixed column.
 */
export function opening(comparison: Comparison): string[] {
  const stock = comparison.runs.find((r) => r.spec.label === 'stock');
  const fixed = comparison.runs.find((r) => r.spec.label === 'fixed');
  if (!stock || !fixed) return [];
  const clients = stock.summary.session.clients;
  const who = clients === 1 ? 'a server and one client' : `a server and ${clients} clients`;
  const did = (run: ComparedRun, name: string) => {
    const p = run.summary.peers;
    const peak = Math.max(p.server.ackOutbox.max, p.client.ackOutbox.max);
    const leak = run.trends.filter((t) => t.metric === 'ackOutbox' && t.trend.leak);
    const growth =
      leak.length === 0
        ? 'and did not keep growing'
        : `and kept growing, by about ${fmt(Math.max(...leak.map((t) => t.trend.slopePerHour)))} entries an hour`;
    const lost = run.summary.delivery.reliableLost;
    return `${name} ACK-outbox reached at most ${fmt(peak)} waiting acknowledgements ${growth}; it lost ${lost === 0 ? 'no reliable message' : `${fmt(lost)} reliable messages`}.`;
  };
  return [
    `bcsim simulated ${durationLabel(usToSeconds(comparison.durationUs))} of ${comparison.scenario.name}, ${who}, twice on the same traffic: once with the transport as it ships (stock) and once with the fixes (fixed).`,
    did(stock, "Stock's"),
    did(fixed, "Fixed's"),
  ];
}
