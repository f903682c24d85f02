// How a connection ends (docs/sources.md 19, 21). The peer asks this
// object what to do after each update; it holds only the lifecycle state.
//
//   open ─disconnect()─▶ (drain only) draining ─queues empty─▶ disconnecting ─▶ closed
//   any live state ─nothing received for the peer timeout─▶ timed-out
//   any live state ─a give-up (onGiveUp: disconnect) or an unfinished drain─▶ gave-up
//   any live state ─the host itself went away (a client crash)─▶ halted
//   open ─the host Boots the remote for a protocol error─▶ disconnecting ─Boot ACKed or linger─▶ closed
import { addUs, msToUs, scaleUs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { retransmitIntervalUs } from './backoff.js';
import type { TransportParams, TransportSwitches } from './switches.js';

export type ConnectionState = 'open' | 'draining' | 'disconnecting' | 'closed' | 'timed-out' | 'gave-up' | 'halted';

/** True once the connection is over for good. */
export function connectionEnded(state: ConnectionState): boolean {
  return state === 'closed' || state === 'timed-out' || state === 'gave-up' || state === 'halted';
}

/** What the peer does after an update: carry on, close, or give up (a message given up, or the drain deadline). */
export type UpdateVerdict = 'continue' | 'closed' | 'gave-up' | 'drain-deadline';

/** The facts of the peer's queues that the verdict depends on. */
export interface QueuesView {
  /** Our Disconnect is neither waiting for a first send nor for its ACK. */
  ownDisconnectAcked(seq: number): boolean;
  ackOutboxEmpty(): boolean;
}

export class ConnectionLifecycle {
  private current: ConnectionState = 'open';
  /** Opens the pass-2 gate unconditionally (ack-outbox-deadlock.md §2, exit 2). */
  disconnecting = false;
  private disconnectSeq: number | null = null;
  /** Stock: the remote's Disconnect was dispatched at this time; the peer is removed after the linger. */
  private remoteLeftAtUs: Micros | null = null;
  private readonly removeAfterUs: Micros;
  /** We Booted the remote at this time: the connection closes when the Boot is ACKed, or after the linger. */
  private kickedAtUs: Micros | null = null;
  /** Drain: the remote's Disconnect was delivered. */
  private remoteDisconnected = false;
  /** Drain: once both Disconnects are through, linger (to ACK a re-sent one) until then. */
  private lingerUntilUs: Micros | null = null;
  /** Drain: an unfinished drain ends the connection at this time (the peer timeout). */
  private drainDeadlineUs: Micros | null = null;
  /** Drain: when it began (null: no drain). */
  private drainStartedUs: Micros | null = null;
  readonly drain: boolean;
  private readonly lingerUs: Micros;

  constructor(
    private readonly switches: TransportSwitches,
    private readonly params: TransportParams,
    private readonly changed: (state: ConnectionState) => void,
  ) {
    this.drain = switches.closePolicy === 'drain';
    this.lingerUs = scaleUs(retransmitIntervalUs(switches.retransmit, 0), 2);
    this.removeAfterUs = msToUs(params.disconnectedPeerLingerMs);
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** When the drain began (null: none did). */
  get drainStartUs(): Micros | null {
    return this.drainStartedUs;
  }

  /** Drain: the remote's Disconnect was delivered. */
  get remoteHasLeft(): boolean {
    return this.remoteDisconnected;
  }

  set(state: ConnectionState): void {
    this.current = state;
    this.changed(state);
  }

  /** Drain: stop taking messages; the Disconnect waits until everything sent was ACKed. */
  startDrain(nowUs: Micros): void {
    if (this.current !== 'open') throw new Error(`lifecycle: drain started in state ${this.current}`);
    this.drainStartedUs = nowUs;
    this.drainDeadlineUs = addUs(nowUs, msToUs(this.params.peerTimeoutMs));
    this.set('draining');
  }

  /** Drain: the Disconnect may be queued once nothing is left to send or re-send. */
  readyToSendDisconnect(queuesEmpty: boolean): boolean {
    return this.current === 'draining' && queuesEmpty;
  }

  /** Our Disconnect is queued with this seq. */
  disconnectQueued(seq: number): void {
    if (this.current !== 'open' && this.current !== 'draining')
      throw new Error(`lifecycle: Disconnect queued in state ${this.current}`);
    this.disconnectSeq = seq;
    this.disconnecting = true;
    this.set('disconnecting');
  }

  /** We removed the remote (a protocol error): our Boot with this seq is queued; see verdict. */
  kicked(seq: number, nowUs: Micros): void {
    this.disconnectQueued(seq);
    this.kickedAtUs = nowUs;
  }

  /** The remote's Disconnect was delivered to the application layer. */
  remoteLeft(nowUs: Micros): void {
    if (this.drain) {
      // Drain what we owe the remote, then send our own Disconnect.
      this.remoteDisconnected = true;
      if (this.current === 'open') this.startDrain(nowUs);
    } else if (this.current === 'open') {
      // Stock: ACK it with the gate open, re-send due ACKs, and remove the peer after
      // disconnectedPeerLingerMs (docs/sources.md 21), at least one update later.
      this.disconnecting = true;
      this.remoteLeftAtUs = nowUs;
      this.set('disconnecting');
    }
  }

  /** After an update's sends: carry on, or end the connection and how. */
  verdict(nowUs: Micros, gaveUpInUpdate: boolean, queues: QueuesView): UpdateVerdict {
    // transport-layer.md §4: giving up on a message ends the connection (fixed).
    if (gaveUpInUpdate && this.switches.onGiveUp === 'disconnect') return 'gave-up';
    if (
      this.remoteLeftAtUs !== null &&
      nowUs > this.remoteLeftAtUs &&
      nowUs >= this.remoteLeftAtUs + this.removeAfterUs
    )
      return 'closed';
    const ownAcked = this.disconnectSeq !== null && queues.ownDisconnectAcked(this.disconnectSeq);
    if (this.kickedAtUs !== null)
      return ownAcked || nowUs >= this.kickedAtUs + this.removeAfterUs ? 'closed' : 'continue';
    if (!this.drain) return ownAcked ? 'closed' : 'continue';
    if (ownAcked && this.remoteDisconnected) {
      this.lingerUntilUs ??= addUs(nowUs, this.lingerUs);
      if (nowUs >= this.lingerUntilUs && queues.ackOutboxEmpty()) return 'closed';
    }
    if (this.drainDeadlineUs !== null && nowUs > this.drainDeadlineUs) return 'drain-deadline';
    return 'continue';
  }

  /** The connection ended: nothing keeps the gate open any more. */
  ended(state: 'closed' | 'timed-out' | 'gave-up' | 'halted'): void {
    if (connectionEnded(this.current))
      throw new Error(`lifecycle: ${state} after the connection already ended (${this.current})`);
    this.disconnecting = false;
    this.set(state);
  }
}
