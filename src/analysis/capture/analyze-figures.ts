// The figures of a finished analysis (schema bcsim.analyze/2, analysis-types.ts):
// per direction, per end's ACK-outbox estimate under its own behaviour, per
// connection with the signature verdict.
import { usToSeconds } from '../../core/engine/index.js';
import { measureSignature, median } from '../reproduce/index.js';
import type { Signature } from '../reproduce/index.js';
import type { Role } from '../../model/transport/index.js';
import { inferBehaviour } from './ack-behaviour.js';
import type {
  AckBehaviour,
  AckRuleName,
  ConnectionAnalysis,
  DirectionFigures,
  OutboxEstimate,
} from './analysis-types.js';
import { seriesOf } from './analyze-state.js';
import type { ConnectionState, Direction } from './analyze-state.js';

/** The end of a capture can hold entries created but not yet ACKed on the wire: the estimate stops this much before it. */
const UNSEEN_TAIL_US = 1_000_000;
/** An end silent this long at the end of its connection (two keepalive intervals, docs/sources.md 12) has gone away. */
const GONE_SILENCE_US = 10_000_000;

function seconds(us: number): number | null {
  return Number.isNaN(us) ? null : usToSeconds(us);
}

function directionFigures(d: Direction): DirectionFigures {
  const sendsPerKey: Record<string, number> = {};
  let keys = 0;
  let sends = 0;
  for (let i = 1; i <= 10; i++) {
    if (d.sendsPerKey[i] === 0) continue;
    sendsPerKey[i === 10 ? '10+' : String(i)] = d.sendsPerKey[i];
    keys += d.sendsPerKey[i];
  }
  sends = d.ackSends;
  return {
    from: d.from,
    datagrams: d.datagrams,
    bytes: d.bytes,
    messages: d.messages,
    messagesPerDatagram: { mean: d.datagrams === 0 ? null : d.messages / d.datagrams, max: d.messagesMax },
    ackBytesPerDatagram: {
      mean: d.datagrams === 0 ? null : d.ackBytes / d.datagrams,
      max: d.ackBytesMax,
      total: d.ackBytes,
    },
    unreliable: d.unreliable,
    reliable: { low: { ...d.low }, high: { ...d.high } },
    fragments: {
      messages: d.fragMessages,
      transmissions: d.fragTransmissions,
      retransmissions: d.fragRetransmissions,
      messagesResent: d.fragMessagesResent,
      rounds: d.rounds,
      completeRounds: d.completeRounds,
      periodS: d.roundGaps.length === 0 ? null : usToSeconds(median(d.roundGaps)),
      firstRoundS: seconds(d.firstRoundUs),
      lastRoundS: seconds(d.lastRoundUs),
    },
    keepalives: { type00: d.type00, type02: d.type02, echoes: d.echoes, echoSeqReused: d.echoSeqReused },
    seqRestarts: {
      count: d.seqRestarts,
      first:
        d.firstSeqRestart === null
          ? null
          : {
              atS: usToSeconds(d.firstSeqRestart.atUs),
              category: d.firstSeqRestart.category,
              fromSeq: d.firstSeqRestart.fromSeq,
              toSeq: d.firstSeqRestart.toSeq,
            },
    },
    disconnects: d.disconnects,
    boots: d.boots,
    deviations: { datagrams: d.deviations.datagrams, byCode: { ...d.deviations.byCode } },
    acks: {
      sent: d.ackSends,
      keys: d.ackKeys,
      sendsPerKey,
      meanSendsPerKey: keys === 0 ? null : sends / keys,
      threeThenSilence: d.threeThenSilence,
      silencedByRemoval: d.silencedByRemoval,
      stale: d.stale,
      repeatsWhileOutstanding: d.repeatsWhileOutstanding,
      late: d.late,
      forUnseenMessages: d.forUnseen,
      maxAgeS: seconds(d.maxAgeUs),
      maxRun: d.maxRun,
      untracked: d.untrackedAckSends,
    },
  };
}

function outboxEstimate(c: ConnectionState, d: Direction, behaviour: AckBehaviour, end: number): OutboxEstimate {
  const byRule = {
    'two-pass': { peak: d.out9.peak, final: d.out9.current },
    'single-pass': { peak: d.out3.peak, final: d.out3.current },
    immediate: { peak: d.out1.peak, final: d.out1.current },
  };
  const base = { side: d.from, behaviour, byRule };
  // No behaviour, no estimate: not a stock guess.
  if (behaviour.rule === 'unknown')
    return {
      ...base,
      peak: null,
      peakS: null,
      final: null,
      deadZone: null,
      defined: null,
      samples: null,
      deadZoneSamples: null,
    };
  const chosen = seriesOf(d, behaviour.rule);
  const twoPass = behaviour.rule === 'two-pass';
  const ref = c.ref;
  // The connection ends at its Disconnect, Boot or BootPlayer; otherwise with the capture, less its last second,
  // in which an entry may have been created without its first ACK on the wire yet.
  const connectionEnd = Number.isNaN(c.endedUs) ? end - UNSEEN_TAIL_US : c.endedUs;
  // An end that falls silent for good (longer than two keepalive intervals, docs/sources.md 12) has gone
  // away (its host died, it removed the client): its outbox is not known past its last datagram.
  const until = connectionEnd - d.lastUs > GONE_SILENCE_US ? d.lastUs : connectionEnd;
  return {
    ...base,
    peak: chosen.peak,
    peakS: chosen.peak === 0 ? null : seconds(chosen.peakUs),
    final: chosen.current,
    deadZone: twoPass ? { peak: d.dead9.peak, final: d.dead9.current } : null,
    defined:
      ref.startSeen && d.untrackedAckSends === 0
        ? { fromS: usToSeconds(ref.firstUs), untilS: usToSeconds(until) }
        : null,
    samples: chosen.series(),
    deadZoneSamples: twoPass ? d.dead9.series() : null,
  };
}

export function connectionFigures(
  c: ConnectionState,
  end: number,
  lifetimeS: number,
  forced: AckRuleName | undefined,
): ConnectionAnalysis {
  const ref = c.ref;
  const criteria = measureSignature(c.signatureEvents, usToSeconds(end), lifetimeS);
  // Criterion 4 from the whole stream: the reduced events hold only the fragmented message and its ACKs.
  const signature: Signature = {
    ...criteria,
    nonFragmentsNotResentAfterAck: { pass: c.resentAfterAck === 0, measured: `${c.resentAfterAck} after ACK` },
  };
  return {
    index: ref.index,
    server: ref.server.label,
    client: ref.client.label,
    slot: ref.slot,
    startSeen: ref.startSeen,
    firstS: usToSeconds(ref.firstUs),
    lastS: usToSeconds(ref.lastUs),
    endedS: seconds(c.endedUs),
    removal: c.removal,
    clientToServer: directionFigures(c.dirs.client),
    serverToClient: directionFigures(c.dirs.server),
    ackOutbox: {
      server: outboxEstimate(c, c.dirs.server, inferBehaviour(c.dirs.server.tally.evidence(), forced), end),
      client: outboxEstimate(c, c.dirs.client, inferBehaviour(c.dirs.client.tally.evidence(), forced), end),
    },
    fragmentAck: {
      seq: c.signatureSeq,
      lifetimeS,
      criteria: signature,
      matches: Object.values(signature).every((x) => x.pass),
      eventsCapped: c.signatureCapped,
    },
    checksumAnswers: { answers: c.answers.answers, notKept: c.answers.notKept },
  };
}

/** The direction label of a connection: `C>S` / `S>C` with one, `C2>S` (by slot) with more. */
export function directionLabel(
  connection: Pick<ConnectionAnalysis, 'index' | 'slot'>,
  from: Role,
  many: boolean,
): string {
  const client = !many ? 'C' : connection.slot === null ? `c${connection.index}` : `C${connection.slot}`;
  return from === 'client' ? `${client}>S` : `S>${client}`;
}
