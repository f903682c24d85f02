// The measured Disconnect flow (docs/sources.md 21, 28) as an experiment of
// `reproduce ack-outbox`: a loopback join, play, ~3.4 s without game data, the
// client's Disconnect, and what the server does with it.
import { TYPE_ACK, TYPE_DISCONNECT, ackFlagsLowType, isLowType } from '../../core/codec/index.js';
import { usToSeconds } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { fanOut, runScenario } from '../../model/session/index.js';
import { cell } from './criteria.js';
import type { Cells } from './criteria.js';
import type { RunWith } from './readings.js';
import { median } from './signature.js';
import { disconnectFact, wireRecorder } from './wire-facts.js';
import type { Wire } from './wire-facts.js';

/**
 * docs/sources.md 21 on loopback: play; the server's last reliable messages (the
 * captured stale ACKs are of its seqs 39 and 40, sent together: a StartFiring
 * pair) come as the client's game data stops; 3.4 s without game data; the
 * client leaves. Only those 2 ACKs were left at the Disconnect, so nothing older
 * was pending: a lull of StateUpdates alone lets every earlier entry reach its
 * ninth send first.
 */
export const MEASURED_FLOW = {
  name: 'measured-disconnect-flow',
  duration: '90s',
  transport: { updatePeriodMs: { server: 5, client: 10 } },
  traffic: {
    phases: [
      // An object, so that a reading's update periods reach the join (evidence.ts).
      { kind: 'join' },
      { kind: 'combat', duration: '60s', reliablePerSecond: 'measured' },
      { kind: 'lull', duration: '6s' },
      {
        kind: 'combat',
        duration: '1ms',
        reliablePerSecond: 20,
        clientShare: 0,
        arrival: 'periodic',
        eventKinds: ['StartFiring'],
      },
      { kind: 'quiet', duration: '3.4s' },
      'disconnect',
    ],
  },
};

type FlowKeys =
  | 'ackSpacing'
  | 'everyDatagram'
  | 'threeThenSilence'
  | 'disconnectDatagram'
  | 'disconnectAckSends'
  | 'disconnectAckTimestamps'
  | 'peerRemoved';

const acks = (d: Wire, low: boolean, seq: number) =>
  d.messages.some((m) => m.type === TYPE_ACK && m.seq === seq && ackFlagsLowType(m.flags) === low);

export function flowRun(scenario: Scenario, options: RunWith): Pick<Cells, FlowKeys> {
  const wire = wireRecorder();
  let arrivedAtServer: number[] = [];
  let removedAt: number | null = null;
  const { session } = runScenario(scenario, {
    ...options,
    observer: fanOut(wire.observer, {
      datagramArrived(timeUs, to, _bytes, _duplicate, client) {
        if (to === 'server' && client === 1) arrivedAtServer.push(usToSeconds(timeUs));
      },
      stateChanged(timeUs, role, state, client) {
        if (role === 'server' && client === 1 && state === 'closed' && removedAt === null)
          removedAt = usToSeconds(timeUs);
      },
    }),
  });
  const sent = wire.sent;
  const phaseStart = (kind: string) => usToSeconds(session.traffic.phaseLog.find((p) => p.kind === kind)?.startUs ?? 0);
  const quietS = phaseStart('quiet');
  const combatS = phaseStart('combat');
  const client = sent.filter((d) => d.from === 'client');
  const bye = client.find((d) => d.messages.some((m) => m.type === TYPE_DISCONNECT)) ?? null;
  const byeT = bye?.t ?? Number.POSITIVE_INFINITY;
  // The last reliable message the server sent before the Disconnect, and the client's sends of its ACK.
  let target: { low: boolean; seq: number } | null = null;
  for (const d of sent) {
    if (d.from !== 'server' || d.t >= byeT) continue;
    for (const m of d.messages)
      if (m.type !== TYPE_ACK && m.reliable) target = { low: isLowType(m.type), seq: m.seq as number };
  }
  const carrying =
    target === null
      ? []
      : client.filter((d) => d.t < byeT && acks(d, (target as { low: boolean }).low, (target as { seq: number }).seq));
  // The median gap: the resend timer's spacing, not a pass-2 send whenever the gate happened to open.
  const gaps = carrying.slice(1).map((d, i) => d.t - carrying[i].t);
  const spacing = gaps.length ? median(gaps) : null;
  const lastAck = carrying.length ? carrying[carrying.length - 1].t : null;
  const between = lastAck === null ? [] : client.filter((d) => d.t > lastAck && d.t < byeT);
  // The server's ACK of the client's Disconnect (the low seq of that Disconnect).
  const disconnect = bye?.messages.find((m) => m.type === TYPE_DISCONNECT);
  const byeSeq = disconnect !== undefined && disconnect.type === TYPE_DISCONNECT ? disconnect.seq : null;
  const serverAcks =
    byeSeq === null
      ? []
      : sent.filter((d) => d.from === 'server' && d.t >= byeT && acks(d, true, byeSeq as number)).map((d) => d.t);
  const serverGaps = serverAcks.slice(1).map((t, i) => t - serverAcks[i]);
  const serverSpacing = serverGaps.length ? median(serverGaps) : null;
  const span = serverAcks.length > 1 ? serverAcks[serverAcks.length - 1] - serverAcks[0] : 0;
  arrivedAtServer = arrivedAtServer.filter((t) => t >= byeT);
  const arrived = arrivedAtServer[0] ?? null;
  const removal = removedAt !== null && arrived !== null ? (removedAt as number) - arrived : null;
  const sends = `${serverAcks.length} send${serverAcks.length === 1 ? '' : 's'}`;
  const every = ridingShare(sent, combatS + 5, quietS - 6);
  return {
    ackSpacing: cell(
      'ackSpacing',
      spacing === null ? 'n/a' : `${spacing.toFixed(3)} s`,
      spacing !== null && Math.abs(spacing - 0.667) <= 0.03,
    ),
    everyDatagram: cell('everyDatagram', `${Math.round(every * 100)}% of datagrams`, every >= 0.9),
    threeThenSilence: cell(
      'threeThenSilence',
      `${carrying.length} sends, then ${between.length} datagram${between.length === 1 ? '' : 's'}`,
      carrying.length === 3 && between.length === 0 && bye !== null,
    ),
    disconnectDatagram: cell('disconnectDatagram', disconnectFact(bye).value, disconnectFact(bye).matches),
    disconnectAckSends: cell(
      'disconnectAckSends',
      `${sends}${serverSpacing === null ? '' : `, ${serverSpacing.toFixed(2)} s apart`}`,
      serverAcks.length === 8 && serverSpacing !== null && Math.abs(serverSpacing - 0.67) <= 0.05,
    ),
    disconnectAckTimestamps: cell(
      'disconnectAckTimestamps',
      `${sends} over ${span.toFixed(2)} s`,
      serverAcks.length === 7 && Math.abs(span - 4.0) <= 0.3,
    ),
    peerRemoved: cell(
      'peerRemoved',
      removal === null ? 'not removed' : `${removal.toFixed(2)} s after`,
      removal !== null && removal >= 3.86 && removal <= 4.5 && serverAcks.every((t) => t <= (removedAt as number)),
    ),
  };
}

/**
 * docs/sources.md 25 "every datagram carries each entry whose send count is below 3":
 * for each reliable message the server sent in [fromS, toS), the share of the
 * client's datagrams in the 1.2 s after its ACK's first send (its pass-1 life:
 * sends at 0, 0.667 and 1.33 s) that carry that ACK; the mean over the messages.
 */
function ridingShare(sent: readonly Wire[], fromS: number, toS: number): number {
  const client = sent.filter((d) => d.from === 'client');
  const shares: number[] = [];
  for (const d of sent) {
    if (d.from !== 'server' || d.t < fromS || d.t >= toS) continue;
    for (const m of d.messages) {
      if (m.type === TYPE_ACK || !m.reliable || m.fragment) continue;
      const low = isLowType(m.type);
      const first = client.find((c) => c.t > d.t && acks(c, low, m.seq as number));
      if (first === undefined) continue;
      const window = client.filter((c) => c.t >= first.t && c.t < first.t + 1.2);
      shares.push(window.filter((c) => acks(c, low, m.seq as number)).length / window.length);
    }
  }
  return shares.length === 0 ? 0 : shares.reduce((a, b) => a + b, 0) / shares.length;
}
