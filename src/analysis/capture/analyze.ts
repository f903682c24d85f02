// The figures bcsim's model reports, measured from the wire alone.
// One WireAnalyzer takes datagrams in time order, from a capture
// (analyzeCapture) or from a simulated run (analyze-against.ts feeds it from
// an observer), so both columns of `bcsim analyze --against` come from the
// same code.
//
// Per connection and direction (named by the sender): datagrams, bytes,
// messages and ACK bytes per datagram, reliable messages per category with
// their retransmissions (the same seq and fragment index again from the same
// sender), fragment retransmit rounds and their period, keepalives, and the
// ACKs the sender puts on the wire: how often each ACK key is sent, stale and
// late ACKs. Per connection end, an estimate of its ACK-outbox over time and
// the fragment-ACK signature verdict of `bcsim reproduce fragment-ack`.
//
// The ACK-outbox estimate (docs/captures.md#reading-captures-decode-and-analyze): an ACK entry is an ACK
// key (seq, low/high, fragment flag and index) its sender holds. It is born
// when the message it answers is read, one network update before the first
// send of its key (never before the message was on the wire, nor more than
// 1 s before that send), and freed at its F-th send (docs/sources.md 8: the
// stock two-pass outbox frees an entry at its 9th send, the fixed single pass
// at its 3rd, an immediate ACK at its only send); a key sent again after that
// is a new entry. The estimate at a sample time t counts the entries born
// before t and not freed before t (a sample taken at an update's instant sees
// the state before it, as the simulator samples). F follows the behaviour each
// end shows on its own wire (ack-behaviour.ts: two-pass 9, single-pass 3,
// immediate 1); an end whose behaviour is unknown gets no estimate. Only a
// two-pass end has a dead zone (entries at 3 to 8 sends). The estimate of an
// end is defined from the connection's first datagram, when the capture holds
// the connection from its start (the client's first datagram has peer id
// 0xFF), until the connection's Disconnect, Boot or BootPlayer, or one second
// before the capture ends, or the end's own last datagram if it then stays
// silent for more than 10 s (it went away, or the server removed the client:
// connection-end.ts).
//
// This file walks each datagram and hands its messages on: analyze-messages.ts
// follows the messages an end sends, analyze-acks.ts its ACKs and the outbox
// estimate, analyze-signature.ts the signature's events; analyze-state.ts holds
// the state per connection and end, analyze-ends.ts the evidence of each end's
// ACK behaviour, analyze-figures.ts the finished figures.
import { secondsToUsUnrounded, usToSeconds } from '../../core/engine/index.js';
import {
  DATAGRAM_HEADER_BYTES,
  TYPE_ACK,
  TYPE_BOOT,
  TYPE_DATA,
  TYPE_CONNECT,
  TYPE_DISCONNECT,
  TYPE_GAME,
  ackBytesOfFlags,
  ackFlagsAt,
  afterSeqOffset,
  flagsLenAt,
  flagsLenFragment,
  flagsLenReliable,
  flagsLenSize,
  ackFlagsOther,
  countDeviations,
} from '../../core/codec/index.js';
import type { Deviation } from '../../core/codec/index.js';
import { Opcode } from '../../model/traffic/index.js';
import type { Role } from '../../model/transport/index.js';
import type { CaptureConnection } from './bc-packets.js';
import { datagramMessages } from './wire-walk.js';
import { inferBehaviour } from './ack-behaviour.js';
import { silentRemoval } from './connection-end.js';
import { datagramRead, evidenceNow, finishDirection, removed } from './analyze-ends.js';
import { ConnectionState, advance, seriesOf, sweep } from './analyze-state.js';
import type { Direction, SeqRestart } from './analyze-state.js';
import { connectionFigures } from './analyze-figures.js';
import { ackSent } from './analyze-acks.js';
import { echoSent, reliableSent } from './analyze-messages.js';
import type { AckBehaviourName, AnalyzerOptions, WireAnalysis } from './analysis-types.js';
import { analysisBudget } from './analyze-budget.js';
import type { Budget } from '../../core/engine/index.js';
export type * from './analysis-types.js';
export { SAMPLE_STEP_US, MAX_SAMPLES } from './analyze-tables.js';
export { directionLabel } from './analyze-figures.js';
export { MAX_ACK_KEYS } from './analyze-acks.js';

export const ANALYSIS_SCHEMA = 'bcsim.analyze/2';
export { latencyQuantileMs } from './latency-histogram.js';

/** One end's live figures (WireAnalyzer.live). */
interface LiveDirection {
  readonly datagrams: number;
  /** Re-sends of reliable messages (fragments included), low and high category. */
  readonly retransmissions: number;
  readonly fragmentRounds: number;
  readonly staleAcks: number;
  /** The behaviour the end's wire shows so far, and its ACK-outbox estimate under it (null when unknown). */
  readonly ackBehaviour: AckBehaviourName;
  readonly ackOutbox: number | null;
  /** Entries at 3 to 8 sends under a two-pass behaviour (null under any other). */
  readonly deadZone: number | null;
  readonly bytes: number;
  readonly messages: number;
  /** Bytes of ACK messages in this end's datagrams. */
  readonly ackBytes: number;
  readonly boots: number;
  readonly disconnects: number;
  /** This end's ACK latencies so far (cumulative counts per bucket, latency-histogram.ts): read, never kept. */
  readonly ackLatencyCounts: Uint32Array;
  /** New reliable messages under old numbers: the count started again before the u16 wrap, and the first time. */
  readonly seqRestarts: number;
  readonly firstSeqRestart: SeqRestart | null;
}

export interface LiveConnection {
  readonly index: number;
  readonly client: LiveDirection;
  readonly server: LiveDirection;
}

const SWEEP_EVERY_US = 120_000_000;
/** Stock message lifetime for the signature's criterion 3 (messageLifetime peer-timeout). */
const DEFAULT_LIFETIME_S = 45;

export class WireAnalyzer {
  private readonly states = new Map<CaptureConnection, ConnectionState>();
  private readonly order: ConnectionState[] = [];
  private lastUs = 0;
  /** Datagrams refused because the codec would reject them. */
  rejected = 0;

  /** The memory the analysis holds over every connection (what it refused is counted per structure). */
  readonly budget: Budget;

  constructor(private readonly options: AnalyzerOptions = {}) {
    this.budget = analysisBudget(options.budgetBytes);
  }

  /**
   * One plaintext datagram `from` sent on `connection` at `timeUs` (relative),
   * `length` bytes on the wire. Returns false, and counts nothing, when the
   * codec would reject the bytes. The bytes are read during the call only.
   * `deviations`: what a dialect reading (docs/sources.md 30) named before `bytes`
   * were put in the stock form; ACK flag bits stay in the bytes and are counted from them.
   */
  add(
    connection: CaptureConnection,
    from: Role,
    timeUs: number,
    length: number,
    bytes: Uint8Array,
    end: number = bytes.length,
    deviations: readonly Deviation[] = NO_DEVIATIONS,
  ): boolean {
    const n = datagramMessages(bytes, end);
    if (n < 0) {
      this.rejected++;
      return false;
    }
    let c = this.states.get(connection);
    if (c === undefined) {
      c = new ConnectionState(connection, this.budget);
      this.states.set(connection, c);
      this.order.push(c);
    }
    if (timeUs > this.lastUs) this.lastUs = timeUs;
    const d = c.dirs[from];
    const other = c.dirs[from === 'server' ? 'client' : 'server'];
    advance(d, timeUs);
    advance(other, timeUs);
    d.datagrams++;
    d.lastUs = timeUs;
    d.period.datagram(timeUs);
    d.bytes += length;
    d.messages += n;
    if (n > d.messagesMax) d.messagesMax = n;
    let ackBytes = 0;
    let ackFlagBits = 0;
    let others = 0; // messages other than ACKs
    let openers = 0; // of those, the ones that surely open the pass-2 gate
    let reliables = 0;
    let pos = DATAGRAM_HEADER_BYTES;
    for (let i = 0; i < n; i++) {
      const type = bytes[pos];
      if (type === TYPE_ACK) {
        const flags = ackFlagsAt(bytes, pos);
        if (ackFlagsOther(flags) !== 0) ackFlagBits++;
        const size = ackBytesOfFlags(flags);
        ackBytes += size;
        ackSent(c, d, other, bytes, pos, flags, timeUs);
        pos += size;
        continue;
      }
      others++;
      // A keepalive may travel outside the queues and then open no gate (docs/sources.md 18, switch keepalive.path).
      if (type !== TYPE_DATA && type !== TYPE_CONNECT) openers++;
      const flagsLen = flagsLenAt(bytes, pos);
      const size = flagsLenSize(type, flagsLen);
      const reliable = flagsLenReliable(flagsLen);
      const payloadAt = pos + afterSeqOffset(reliable);
      let echo = false;
      if (type === TYPE_DATA) {
        // docs/sources.md 26: the server echoes the client's keepalive; a copy of it is an echo, not a message of the server's.
        if (from === 'client') c.keepalives.clientKeepalive(bytes, payloadAt, pos + size);
        else echo = c.keepalives.isEcho(bytes, payloadAt, pos + size);
        if (echo) d.echoes++;
        else d.type00++;
      } else if (type === TYPE_CONNECT) d.type02++;
      else if (type === TYPE_DISCONNECT) {
        d.disconnects++;
        c.disconnecting = true;
        if (Number.isNaN(c.endedUs)) c.endedUs = timeUs;
        if (from === 'server')
          removed(c, {
            atS: usToSeconds(timeUs),
            by: 'disconnect',
            inferred: false,
            detail: 'a server Disconnect, type 0x05',
          });
      } else if (type === TYPE_BOOT) {
        d.boots++;
        c.disconnecting = true;
        if (payloadAt < pos + size) this.booted(connection, bytes[payloadAt], timeUs);
      } else if (
        type === TYPE_GAME &&
        from === 'server' &&
        !flagsLenFragment(type, flagsLen) &&
        payloadAt < pos + size &&
        bytes[payloadAt] === Opcode.BootPlayer
      ) {
        // A game BootPlayer: the server tells the client it is removed.
        if (Number.isNaN(c.endedUs)) c.endedUs = timeUs;
        const reason = payloadAt + 1 < pos + size ? `, reason ${bytes[payloadAt + 1]}` : '';
        removed(c, {
          atS: usToSeconds(timeUs),
          by: 'boot-player',
          inferred: false,
          detail: `a game BootPlayer, type 0x32 opcode 0x04${reason}`,
        });
      }
      if (reliable && type === TYPE_GAME && from === 'client') c.answers.message(bytes, pos, size, flagsLen, timeUs);
      if (reliable) {
        reliables++;
        if (echo) echoSent(c, d, other, bytes, pos, timeUs);
        else reliableSent(c, d, other, bytes, pos, type, flagsLen, timeUs);
      } else d.unreliable++;
      pos += size;
    }
    d.ackBytes += ackBytes;
    if (ackBytes > d.ackBytesMax) d.ackBytesMax = ackBytes;
    if (ackFlagBits > 0 || deviations.length > 0) countEndDeviations(d, deviations, ackFlagBits);
    datagramRead(c, d, end, n, others, openers, timeUs);
    if (from === 'server') c.sinceServer.serverSent();
    else c.sinceServer.clientSent(timeUs, reliables);
    if (timeUs - d.lastSweepUs >= SWEEP_EVERY_US) {
      d.lastSweepUs = timeUs;
      sweep(d, timeUs);
    }
    return true;
  }

  /** A Boot names the slot of the peer the server removed: that connection (same server) has ended. */
  private booted(connection: CaptureConnection, slot: number, timeUs: number): void {
    for (const s of this.order) {
      if (s.ref.server !== connection.server || s.ref.slot !== slot) continue;
      if (Number.isNaN(s.endedUs)) s.endedUs = timeUs;
      removed(s, {
        atS: usToSeconds(timeUs),
        by: 'boot',
        inferred: false,
        detail: `a transport Boot, type 0x04, naming slot ${slot}`,
      });
    }
  }

  /**
   * Live figures per connection while datagrams still arrive (the proxy's status
   * line): read-only, unlike finish(), so input can go on after it.
   * Stale ACKs are those already known stale; the ACK-outbox is the current
   * estimate under the behaviour each end's wire shows so far.
   */
  live(): LiveConnection[] {
    const figures = (d: Direction): LiveDirection => {
      const rule = inferBehaviour(evidenceNow(d), this.options.ackRule).rule;
      return {
        datagrams: d.datagrams,
        retransmissions: d.low.retransmissions + d.high.retransmissions,
        fragmentRounds: d.rounds,
        staleAcks: d.stale,
        ackBehaviour: rule,
        ackOutbox: rule === 'unknown' ? null : seriesOf(d, rule).current,
        deadZone: rule === 'two-pass' ? d.dead9.current : null,
        bytes: d.bytes,
        messages: d.messages,
        ackBytes: d.ackBytes,
        boots: d.boots,
        disconnects: d.disconnects,
        ackLatencyCounts: d.ackLatency.counts,
        seqRestarts: d.seqRestarts,
        firstSeqRestart: d.firstSeqRestart,
      };
    };
    return this.order.map((c) => ({
      index: c.ref.index,
      client: figures(c.dirs.client),
      server: figures(c.dirs.server),
    }));
  }

  /**
   * The server's ACK-outbox estimate on `connection` under each behaviour, and the two-pass dead zone,
   * as of now: O(1), for a reader that follows them datagram by datagram (MinuteMeter's peaks).
   */
  serverOutboxNow(connection: CaptureConnection): { out1: number; out3: number; out9: number; dead9: number } | null {
    const d = this.states.get(connection)?.dirs.server;
    if (d === undefined) return null;
    return { out1: d.out1.current, out3: d.out3.current, out9: d.out9.current, dead9: d.dead9.current };
  }

  /** The figures, once every datagram is in; `endUs` is the end of the input (relative). */
  finish(endUs: number = this.lastUs): WireAnalysis {
    const end = Math.max(endUs, this.lastUs);
    for (const c of this.order) {
      const client = c.dirs.client;
      c.removal ??= silentRemoval(c.dirs.server.lastUs, client.lastUs, c.sinceServer, c.endedUs);
      const removalUs = c.removal === null ? Number.POSITIVE_INFINITY : secondsToUsUnrounded(c.removal.atS);
      for (const d of [client, c.dirs.server]) finishDirection(d, end, removalUs);
    }
    const lifetimeS = this.options.lifetimeS ?? DEFAULT_LIFETIME_S;
    const forced = this.options.ackRule ?? null;
    return {
      endS: usToSeconds(end),
      ackRuleForced: forced,
      connections: this.order.map((c) => connectionFigures(c, end, lifetimeS, forced ?? undefined)),
    };
  }
}

const NO_DEVIATIONS: readonly Deviation[] = [];

/** One datagram's deviations (docs/sources.md 30): those named by its reader, and its ACK flag bits outside 0-1. */
function countEndDeviations(d: Direction, deviations: readonly Deviation[], ackFlagBits: number): void {
  countDeviations(
    d.deviations,
    deviations.filter((x) => x.code !== 'ack-flag-bits'),
  );
  if (ackFlagBits === 0) return;
  if (!deviations.some((x) => x.code !== 'ack-flag-bits')) d.deviations.datagrams++;
  d.deviations.byCode['ack-flag-bits'] = (d.deviations.byCode['ack-flag-bits'] ?? 0) + ackFlagBits;
}
