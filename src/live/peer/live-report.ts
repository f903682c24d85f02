// The text `bcsim peer` prints without --json: our end's figures,
// what happened to our messages, timer accuracy, and the counterpart's
// retransmissions and ACKs as the wire shows them. Its keepalive echoes and
// repeats are counted apart from data re-sends wherever either is counted.
import { deviationCountsText } from '../../core/codec/index.js';
import { usToMs } from '../../core/engine/index.js';
import type { DirectionFigures } from '../../analysis/capture/index.js';
import { unreadableLine } from '../unreadable.js';
import type { LatenessFigures, StallFigures } from '../wall-clock.js';
import type { LiveSummary } from './live-summary.js';

export function renderLiveSummary(s: LiveSummary): string {
  const p = s.peer;
  const d = s.delivery;
  const lines = [
    `bcsim peer ${s.role} · ${s.scenario} · mode ${s.mode} · seed ${s.seed} · ${s.wallSeconds.toFixed(1)} s · stopped: ${s.stopReason}`,
    `  local ${s.local}${s.role === 'client' && Object.keys(p.connections).length > 1 ? " (client 1; each client's below)" : ''}${s.remote === null ? '' : `, counterpart ${s.remote}`}`,
    `  datagrams: ${s.wire.sent} sent, ${s.wire.received} received${s.wire.refusedAddresses ? `, ${s.wire.refusedAddresses} from refused addresses` : ''}${s.wire.unopened ? `, ${s.wire.unopened} from new addresses that opened no connection` : ''}${s.wire.gamespy ? `, ${s.wire.gamespy} GameSpy` : ''}${s.wire.placesReused ? `; ${s.wire.placesReused} place${s.wire.placesReused === 1 ? '' : 's'} of departed clients given to new ones` : ''}${s.wire.rejoins ? `; ${s.wire.rejoins} rejoin${s.wire.rejoins === 1 ? '' : 's'} after the server ended a connection` : ''}`,
  ];
  if (s.wire.notLogged > 0)
    lines.push(
      `  wire log: ${s.wire.notLogged} datagrams not kept (about ${mib(s.wire.notLoggedBytes)} MiB past its ${mib(s.wire.logBudgetBytes)} MiB budget, --wire-log-mb)` +
        (s.wire.logCompleteUntilS === null
          ? '; only unreadable ones, so the rules judged the whole run'
          : `; the rules and the analysis judged the first ${s.wire.logCompleteUntilS.toFixed(1)} s`),
    );
  if (s.wire.unreadable.total > 0) lines.push(`  unreadable datagrams: ${unreadableLine(s.wire.unreadable)}`);
  for (const r of s.removals)
    lines.push(
      `  removed client ${r.client} (connection ${r.connection}) at ${r.atS.toFixed(3)} s, with a Boot: ${r.reason}`,
    );
  for (const c of Object.values(p.connections)) {
    const many = Object.keys(p.connections).length > 1;
    const who =
      s.role === 'server'
        ? `${c.connection}, slot ${c.slot} (${c.address ?? '?'})`
        : `${many ? `${c.connection} (client ${c.client}) ` : ''}to ${c.address ?? '?'}`;
    // A place a later client took: the span its client held it.
    const span = c.untilS === null ? '' : ` from ${(c.fromS ?? 0).toFixed(1)} s until ${c.untilS.toFixed(1)} s,`;
    lines.push(
      `  connection ${who}:${span} ${c.joinedAtS === null ? 'join NOT completed' : `in game at ${c.joinedAtS.toFixed(1)} s`}, state ${c.state}`,
    );
  }
  if (p.connectionsNotListed > 0)
    lines.push(`  and ${p.connectionsNotListed} earlier connections, counted but not listed`);
  lines.push(
    `  our reliable messages: ${d.reliableSent} sent, ${d.acknowledged} ACKed, ${d.unacknowledged} not ACKed, ${d.gaveUp} given up (and ${d.transportReliableSent} of the transport's own)`,
    `  the counterpart's: ${d.reliableDelivered} reliable delivered to the game (${d.reliableReceived} transmissions read, ${duplicates(d)}), ${d.unreliableReceived} unreliable`,
    `  our transport: retransmits ${p.retransmits} (fragments ${p.fragmentRetransmits}), ACK-outbox max ${p.ackOutbox.max} (dead zone ${p.ackOutboxDeadZone.max}), retransmit queue max ${p.retransmitQueue.max}, ACKs sent ${p.acksSent}`,
    `  timers: dispatch late ${lateness(s.timers.dispatchLatenessUs)}; sends late ${lateness(s.timers.sendLatenessUs)}`,
  );
  if (s.timers.stalls.count > 0) lines.push(`  ${stallSentence(s.timers.stalls)}`);
  const remote = s.role === 'client' ? 'server' : 'client';
  for (const c of s.counterpart.analysis.connections) {
    const them: DirectionFigures = remote === 'server' ? c.serverToClient : c.clientToServer;
    const transmissions = them.reliable.low.transmissions + them.reliable.high.transmissions;
    const retransmissions = them.reliable.low.retransmissions + them.reliable.high.retransmissions;
    const { echoes, echoSeqReused } = them.keepalives;
    const outbox = c.ackOutbox[remote];
    lines.push(
      `  counterpart (connection ${c.index}): ${them.datagrams} datagrams, ${transmissions} reliable transmissions and ${retransmissions} re-sends of them, ` +
        `${echoes} keepalive echoes (${echoSeqReused} under a seq already used), ` +
        `${them.fragments.rounds} fragment rounds, ${them.acks.sent} ACKs (${them.acks.stale} stale), ` +
        `ACK behaviour ${outbox.behaviour.rule}, ACK-outbox estimate ${outbox.peak === null ? 'none' : `peak ${outbox.peak}`}`,
    );
    // docs/sources.md 30: read, not refused; named here.
    if (them.deviations.datagrams > 0)
      lines.push(
        `  counterpart (connection ${c.index}): ${them.deviations.datagrams} datagrams in non-stock wire forms (${deviationCountsText(them.deviations)})`,
      );
    const restart = them.seqRestarts.first;
    if (restart !== null)
      lines.push(
        `  counterpart (connection ${c.index}): its reliable seq started again before the 16-bit wrap ${them.seqRestarts.count} times, first at ${restart.atS.toFixed(1)} s (${restart.fromSeq}, then ${restart.toSeq}); a stock receiver takes what follows for duplicates (docs/sources.md 1)`,
      );
  }
  return lines.join('\n');
}

/** "3 duplicates dropped: 1 of data, 2 keepalive repeats": a keepalive repeated under its seq is no re-send. */
function duplicates(d: LiveSummary['delivery']): string {
  const keepalives = d.keepaliveDuplicatesReceived;
  return `${d.duplicatesReceived} duplicates dropped: ${d.duplicatesReceived - keepalives} of data, ${keepalives} keepalive repeats`;
}

function mib(bytes: number): string {
  return (bytes / 1_048_576).toFixed(1);
}

/** Our process stalled: what that did to our sends and to how the rules read the counterpart's times. */
function stallSentence(f: StallFigures): string {
  return (
    `our process stalled ${f.count === 1 ? 'once' : `${f.count} times`} (longest ${usToMs(f.longestUs).toFixed(0)} ms, ${usToMs(f.totalUs).toFixed(0)} ms in all): ` +
    'what fell due ran once after each, and the rules take a datagram read just after one to have arrived any time during it'
  );
}

function lateness(f: LatenessFigures): string {
  return f.count === 0
    ? 'none'
    : `p50 ${(usToMs(f.p50)).toFixed(2)} ms, p99 ${(usToMs(f.p99)).toFixed(2)} ms, max ${(usToMs(f.max)).toFixed(2)} ms (${f.count})`;
}
