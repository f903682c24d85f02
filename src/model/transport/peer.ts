// One host's transport towards its remote peer: the three queues (the first-send side
// in send-helper.ts), liveness, and the network update: send, then receive
// every datagram that arrived since the last update, then dispatch
// (fragmented-reliable-ack-bug-analysis.md, "Peer Object Key Fields"; docs/sources.md 7–13, 16).
import { DATAGRAM_HEADER_BYTES, MAX_FRAGMENT_CHUNK_BYTES } from '../../core/codec/index.js';
import {
  PEER_ID_SERVER,
  PEER_ID_UNASSIGNED,
  TYPE_BOOT,
  TYPE_CONNECT_ACK,
  TYPE_DATA,
  TYPE_DISCONNECT,
} from '../../core/codec/index.js';
import { writeDatagram } from '../../core/codec/index.js';
import type { DataType } from '../../core/codec/index.js';
import { DOUBLE_SEED_US, ZERO_US, msToUsUnrounded } from '../../core/engine/index.js';
import type { Micros, Scheduler } from '../../core/engine/index.js';
import { AckOutbox } from './ack-outbox.js';
import { newPeerCounters } from './counters.js';
import type { PeerCounters, PeerGauges } from './counters.js';
import { IntervalPeaks } from './interval-peaks.js';
import type { Fifo } from '../../core/containers/index.js';
import type { SendRequest, TransportHooks } from './hooks.js';
import { SERVER_IDENTITY, clientIdentity, disconnectPayload } from './identity.js';
import type { HostIdentity } from './identity.js';
import { identityMessage, idleKeepalive, resetsIdleClock, sendsKeepalives } from './keepalive.js';
import type { KeepaliveShape } from './keepalive.js';
import { ACK_ENTRY_BYTES, dataMessageBytes } from './memory.js';
import { goodbyeQueued } from './outgoing.js';
import type { OutgoingMessage } from './outgoing.js';
import { plantedFaults } from './planted-bugs.js';
import type { PlantedFaults } from './planted-bugs.js';
import type { Delivery } from './receive-channel.js';
import { Receiver } from './receiver.js';
import { RetransmitQueue } from './retransmit-queue.js';
import type { Role } from './roles.js';
import { buildDatagram, gateRule } from './send-cycle.js';
import { DatagramBuilder } from './datagram-builder.js';
import type { SendCycleParts, UpdateState } from './send-cycle.js';
import { ConnectionLifecycle, connectionEnded } from './lifecycle.js';
import { verdictCause } from './end-cause.js';
import type { EndCause, GiveUpLimit, GivenUp } from './end-cause.js';
import type { ConnectionState, QueuesView } from './lifecycle.js';
import { SendHelper, needsFragments } from './send-helper.js';
import { Slab } from './slab.js';
import type { UpdateSteps } from './update-loop.js';
import type { KeepalivePath, TransportParams, TransportSwitches } from './switches.js';

/** The uids of a datagram with no tracked message: shared, never written. */
const NO_UIDS: readonly number[] = [];

/** docs/sources.md 19: Boot reason 1 = timeout. */
const BOOT_REASON_TIMEOUT = 1;

export class PeerTransport implements UpdateSteps {
  readonly counters: PeerCounters = newPeerCounters();
  /** The charted figures' highest values since the session's last sample, which restarts them (interval-peaks.ts). */
  readonly intervalPeaks = new IntervalPeaks();
  readonly ackOutbox: AckOutbox;
  readonly retransmitQueue: RetransmitQueue;
  /** The test-only planted bug's hooks (planted-bugs.ts), resolved here once; NO_PLANTED_FAULTS in a real run. */
  readonly planted: PlantedFaults;
  /** Seq assignment, fragmentation and what waits for its first send (send-helper.ts). */
  private readonly sendHelper: SendHelper;
  /** The helper's queue, counters and slot, held here too: the update reads them without a hop. */
  readonly firstSendQueue: Fifo<OutgoingMessage>;
  private readonly sendSeq: number[];
  private readonly outOfBand: { message: OutgoingMessage | null };
  private readonly slab = new Slab();
  /** Receive side per category, holding the expected counters (peer+0x28 / +0x24). */
  private readonly receiver: Receiver;
  private readonly parts: SendCycleParts;
  private readonly update: UpdateState = { gateOpened: false };
  /** Reused for every datagram this peer sends. */
  private readonly builder = new DatagramBuilder();
  private readonly onArrival: boolean;
  /** The low seq of this client's Connect while it waits for the connect reply. */
  private connectSeq: number | null = null;
  private readonly lifecycle: ConnectionLifecycle;
  /** Own id in the datagram header: 0x01 for the server, the assigned slot for a client. */
  private ownPeerId: number;
  lastSentUs: Micros = DOUBLE_SEED_US;
  /** A message was given up during this update (onGiveUp: disconnect): the first one, and at which limit. */
  private gaveUpInUpdate: GivenUp | null = null;
  private ended: EndCause | null = null;

  constructor(
    readonly role: Role,
    private readonly sim: Scheduler,
    readonly switches: TransportSwitches,
    readonly params: TransportParams,
    private readonly hooks: TransportHooks,
    /** The address and name in its keepalive and Disconnect payloads; default the role's (client 1's for a client). */
    readonly identity: HostIdentity = role === 'server' ? SERVER_IDENTITY : clientIdentity(1),
  ) {
    this.ownPeerId = role === 'server' ? PEER_ID_SERVER : PEER_ID_UNASSIGNED;
    this.lastSentUs = ZERO_US; // a double field from its first store (time.ts)
    this.sendHelper = new SendHelper(params, this.counters, hooks);
    this.firstSendQueue = this.sendHelper.firstSendQueue;
    this.sendSeq = this.sendHelper.sendSeq;
    this.outOfBand = this.sendHelper.outOfBand;
    this.planted = plantedFaults(switches);
    this.ackOutbox = new AckOutbox(switches, params, this.counters, this.intervalPeaks);
    const gaveUp = (message: OutgoingMessage, limit: GiveUpLimit | null): void => {
      if (limit !== null) this.gaveUpInUpdate ??= { limit, message };
      hooks.gaveUp(message.uid);
    };
    this.retransmitQueue = new RetransmitQueue(
      switches,
      params,
      this.counters,
      { gaveUp },
      this.intervalPeaks,
      this.planted,
    );
    this.lifecycle = new ConnectionLifecycle(switches, params, (state) => hooks.stateChanged?.(state));
    this.onArrival = switches.receiveTiming === 'on-arrival';
    this.receiver = new Receiver({
      role,
      switches,
      planted: this.planted,
      counters: this.counters,
      ackOutbox: this.ackOutbox,
      retransmitQueue: this.retransmitQueue,
      hooks,
      dispatch: (delivery) => this.onDeliver(delivery),
      unreliable: (type, datagram, payloadStart, payloadEnd) => {
        if (type === TYPE_DATA) this.answerIdentity(false);
        hooks.deliverUnreliable(type, datagram, payloadStart, payloadEnd);
      },
    });
    if (!(params.tickMs > 0 && params.datagramsPerUpdate >= 1))
      throw new Error('transport: tick and datagramsPerUpdate must be positive');
    // Fragment 0 carries 7 header bytes; it must fit the 510 bytes after the datagram header.
    if (!(params.fragmentChunkBytes >= 1 && params.fragmentChunkBytes <= MAX_FRAGMENT_CHUNK_BYTES)) {
      throw new Error(
        `transport: fragmentChunkBytes ${params.fragmentChunkBytes} does not fit a datagram (1..${MAX_FRAGMENT_CHUNK_BYTES})`,
      );
    }
    this.parts = {
      ackOutbox: this.ackOutbox,
      retransmitQueue: this.retransmitQueue,
      firstSendQueue: this.firstSendQueue,
      twoPassGated: switches.ackOutbox === 'two-pass-gated',
      gate: gateRule(switches.gateOpeners, switches.gateScope),
      outOfBand: this.outOfBand,
      ridingAcks: switches.ackCarriage !== 'when-due',
      ridingStaleAcks: switches.ackCarriage === 'every-datagram-all',
      inWindow:
        switches.sendWindow === null
          ? null
          : (message) => this.retransmitQueue.inWindow(message.low, message.seq as number),
      onWindowStall: () => this.counters.windowStalls++,
      onFirstSent: (message, nowUs) => {
        this.sendHelper.modelledBytes -= dataMessageBytes(message.payload.length);
        // Reliable messages move to the retransmit queue; unreliable ones are freed (docs/sources.md 8.3).
        if (message.reliable && !this.retransmitQueue.add(message, nowUs)) {
          this.counters.gaveUp++;
          this.gaveUpInUpdate ??= { limit: 'retransmit-queue-full', message };
          hooks.gaveUp(message.uid);
        }
      },
    };
  }

  get state(): ConnectionState {
    return this.lifecycle.state;
  }

  /** Why the connection ended (null while it lives). */
  get endCause(): EndCause | null {
    return this.ended;
  }

  /** Opens the pass-2 gate unconditionally (ack-outbox-deadlock.md §2, exit 2). */
  get disconnecting(): boolean {
    return this.lifecycle.disconnecting;
  }

  get peerId(): number {
    return this.ownPeerId;
  }

  /** The connection exists from now: liveness and the idle clock start here. */
  activate(): void {
    this.receiver.lastActivityUs = this.sim.now;
    this.lastSentUs = this.sim.now;
  }

  /**
   * SendHelper: assigns the category's next seq, fragments an oversize 0x32
   * payload into chunks sharing that seq (forced reliable; the counter moves once),
   * and appends to the first-send queue. Returns false if the message was refused.
   */
  send(request: SendRequest): boolean {
    return this.sendMessage(request.type, request.payload, request.reliable, request.ordered ?? false, request.uid);
  }

  /** `send` without a request object, for the per-message hot path. */
  sendMessage(type: DataType, payload: Uint8Array, reliable: boolean, ordered: boolean, uid: number): boolean {
    if (this.lifecycle.state !== 'open') return this.sendHelper.refuse();
    // The client's Connect (type 0x03 before a slot is assigned) is answered by the connect reply.
    if (type === TYPE_CONNECT_ACK && reliable && this.role === 'client' && this.ownPeerId === PEER_ID_UNASSIGNED) {
      const seq = this.sendSeq[1];
      if (!this.sendHelper.queue(type, payload, reliable, ordered, uid)) return false;
      this.connectSeq = seq;
      return true;
    }
    return this.sendHelper.queue(type, payload, reliable, ordered, uid);
  }

  /** Would `send` split this payload into fragments (and so force it reliable)? */
  fragments(type: number, payloadBytes: number): boolean {
    return needsFragments(type, payloadBytes, this.params.fragmentChunkBytes);
  }

  /**
   * Graceful disconnect. immediate: queue the Disconnect now and open the pass-2
   * gate. drain: stop taking messages and send the Disconnect once everything
   * sent has been ACKed.
   */
  disconnect(): void {
    if (this.lifecycle.state !== 'open') return;
    if (this.lifecycle.drain) this.lifecycle.startDrain(this.sim.now);
    else this.queueDisconnect();
  }

  /**
   * docs/sources.md 19: the host tells this peer that the peer in `slot` timed out:
   * a reliable, ordered type-0x04 Boot (switch bootPayload: the slot, or slot and reason 1).
   */
  sendBoot(slot: number): boolean {
    if (this.lifecycle.state !== 'open') return false;
    const uid = this.hooks.newUid(true, true);
    const payload =
      this.switches.bootPayload === 'slot' ? Uint8Array.of(slot) : Uint8Array.of(slot, BOOT_REASON_TIMEOUT);
    if (this.sendHelper.queue(TYPE_BOOT, payload, true, true, uid)) return true;
    this.hooks.refused(uid);
    return false;
  }

  /**
   * The host removes this peer for a protocol error: a Boot with its slot goes first, with the
   * ACKs still owed (the gate opens), and the connection closes once the Boot is ACKed or after
   * disconnectedPeerLingerMs (docs/sources.md 19, 21). Planted remove-without-boot: it just closes.
   */
  kick(slot: number): void {
    const state = this.lifecycle.state;
    if (state !== 'open' && state !== 'draining') return;
    const uid = this.planted.removeWithoutBoot ? -1 : this.hooks.newUid(true, true);
    const seq = this.sendSeq[1];
    if (uid < 0 || !this.sendHelper.queue(TYPE_BOOT, Uint8Array.of(slot), true, true, uid)) {
      if (uid >= 0) this.hooks.refused(uid);
      this.shutDown('closed', { kind: 'closed' });
      return;
    }
    this.lifecycle.kicked(seq, this.sim.now);
  }

  private queueDisconnect(): void {
    const uid = this.hooks.newUid(true, true);
    const seq = this.sendSeq[1];
    if (!this.sendHelper.queue(TYPE_DISCONNECT, disconnectPayload(this.identity, this.ownPeerId), true, true, uid)) {
      this.hooks.refused(uid); // the queue is full: stay as we are and try again later
      return;
    }
    this.lifecycle.disconnectQueued(seq);
  }

  /**
   * A datagram arrived on this peer's socket. It is read in the next update
   * (docs/sources.md 16), or at once with receiveTiming on-arrival.
   */
  arrive(bytes: Uint8Array, uids: readonly number[] = []): void {
    if (connectionEnded(this.lifecycle.state)) return;
    if (!this.onArrival) {
      this.receiver.enqueue(bytes, uids);
      return;
    }
    this.updateMemoryMax();
    this.receiver.readNow(bytes, uids, this.sim.now);
    this.updateMemoryMax();
  }

  gauges(): PeerGauges {
    return {
      ackOutbox: this.ackOutbox.size,
      ackOutboxDeadZone: this.ackOutbox.deadZone,
      retransmitQueue: this.retransmitQueue.size,
      firstSendQueue: this.firstSendQueue.length,
      memoryBytes: this.memoryBytes(),
    };
  }

  memoryBytes(): number {
    return (
      this.ackOutbox.modelledBytes +
      this.retransmitQueue.modelledBytes +
      this.sendHelper.modelledBytes +
      this.receiver.modelledBytes
    );
  }

  /**
   * Recomputes modelled memory by walking every queue. O(n): for invariant
   * checks in tests, which compare it with the incrementally kept figure.
   */
  auditMemoryBytes(): number {
    let bytes = this.ackOutbox.size * ACK_ENTRY_BYTES + this.sendHelper.auditBytes();
    for (const message of this.retransmitQueue.messages()) bytes += dataMessageBytes(message.payload.length);
    return bytes + this.receiver.auditBytes();
  }

  /** Uids held in the receive buffers (not yet deliverable). */
  heldUids(): number[] {
    return this.receiver.heldUids();
  }

  /** The expected (next to deliver) seq of a category. */
  expectedSeq(low: boolean): number {
    return this.receiver.expectedSeq(low);
  }

  /** The next seq `send` will assign in a category. */
  nextSendSeq(low: boolean): number {
    return this.sendSeq[low ? 1 : 0];
  }

  /**
   * The host went away without a word (a crashed or unplugged client): no more
   * updates, and everything it still held is given up and counted.
   */
  halt(): void {
    if (!connectionEnded(this.lifecycle.state)) this.shutDown('halted', { kind: 'halted' });
  }

  /** Update step 1 (docs/sources.md 16): liveness, keepalive, then SendOutgoingPackets. */
  sendStep(now: Micros): boolean {
    if (connectionEnded(this.lifecycle.state)) return false;
    const c = this.counters;
    this.updateMemoryMax(); // the peak of what was queued since the last event
    c.updates++;
    if (now - this.receiver.lastActivityUs > msToUsUnrounded(this.params.peerTimeoutMs)) {
      this.shutDown('timed-out', { kind: 'peer-timeout', lastHeardUs: this.receiver.lastActivityUs });
      return false;
    }
    const keepalive = this.switches.keepalive;
    if (
      this.lifecycle.state === 'open' &&
      sendsKeepalives(keepalive, this.role) &&
      now - this.lastSentUs >= msToUsUnrounded(this.params.keepaliveIdleMs)
    ) {
      // The keepalive is itself a send: whatever idleCounts counts, it restarts the 5 s clock.
      if (this.sendKeepalive(idleKeepalive(keepalive, this.identity, this.ownPeerId), keepalive.path))
        this.lastSentUs = now;
    }
    // Drain: everything we sent was ACKed, so the Disconnect can leave in this update.
    if (this.lifecycle.readyToSendDisconnect(this.firstSendQueue.length === 0 && this.retransmitQueue.size === 0))
      this.queueDisconnect();
    this.gaveUpInUpdate = null;
    this.update.gateOpened = false;
    for (let d = 0; d < this.params.datagramsPerUpdate; d++) {
      const out = this.builder;
      if (!buildDatagram(this.parts, out, now, this.lifecycle.disconnecting, this.update)) break;
      const offset = this.slab.reserve(out.bytes);
      const slab = this.slab.current;
      const count = out.count;
      writeDatagram(slab, offset, this.ownPeerId, out.messages, out.bytes, count);
      const bytes = slab.subarray(offset, offset + out.bytes);
      c.packetsSent++;
      c.bytesSent += out.bytes;
      c.ackBytesSent += out.ackBytes;
      c.gameBytesSent += out.bytes - DATAGRAM_HEADER_BYTES - out.ackBytes;
      c.messagesSent += out.count;
      if (out.gateShut) c.gateShutDatagrams++;
      if (out.ackBytes > c.ackBytesPerPacketMax) c.ackBytesPerPacketMax = out.ackBytes;
      if (out.ackBytes > this.intervalPeaks.ackBytesPerPacket) this.intervalPeaks.ackBytesPerPacket = out.ackBytes;
      if (out.count > c.messagesPerPacketMax) c.messagesPerPacketMax = out.count;
      if (resetsIdleClock(keepalive.idleCounts, out)) this.lastSentUs = now;
      // The uids travel with the datagram; the notes are the builder's, read during the call.
      // Trailing -1s (ACKs, unreliable messages) are left off, so most datagrams share NO_UIDS.
      let tracked = count;
      while (tracked > 0 && out.uids[tracked - 1] < 0) tracked--;
      this.hooks.emit(bytes, tracked === 0 ? NO_UIDS : out.uids.slice(0, tracked), out.notes, count);
      this.sendHelper.recycleUnreliable(out);
    }
    // Whatever is still queued waited for a later update because the datagrams were full.
    c.deferredMessages += this.firstSendQueue.markRemainingDeferred();
    return true;
  }

  /**
   * Update steps 2 and 3, ProcessIncomingMessages and DispatchReceivedMessages:
   * replies the game queues now leave in the next update, with the ACKs made here.
   */
  receiveStep(now: Micros): void {
    this.receiver.ackConnectLater(now);
    if (this.receiver.waiting > 0) {
      this.updateMemoryMax();
      this.receiver.readAll(now);
    }
    this.updateMemoryMax();
  }

  /** After the update: carry on, or end the connection (lifecycle.ts). */
  endStep(now: Micros): boolean {
    if (connectionEnded(this.lifecycle.state)) return false;
    const next = this.lifecycle.verdict(now, this.gaveUpInUpdate !== null, this.queuesView);
    if (next === 'continue') return true;
    this.shutDown(
      next === 'closed' ? 'closed' : 'gave-up',
      verdictCause(next, this.gaveUpInUpdate, this.retransmitQueue.oldest(), this.lifecycle),
    );
    return false;
  }

  private readonly queuesView: QueuesView = {
    ownDisconnectAcked: (seq) =>
      !this.retransmitQueue.hasSeq(true, seq, false, 0) && !goodbyeQueued(this.firstSendQueue.values(), seq),
    ackOutboxEmpty: () => this.ackOutbox.size === 0,
  };

  private onDeliver(delivery: Delivery): void {
    this.counters.deliveredReliable++;
    if (delivery.type === TYPE_DATA) {
      this.answerIdentity(true);
    } else if (delivery.type === TYPE_CONNECT_ACK && this.role === 'client' && delivery.payload.length > 0) {
      this.ownPeerId = delivery.payload[0]; // the slot assignment
      // The connect reply answers the Connect (see Receiver.receiveReliable): its entry is done.
      const connect = this.connectSeq === null ? null : this.retransmitQueue.answered(true, this.connectSeq);
      this.connectSeq = null;
      if (connect !== null) this.hooks.acknowledged(connect.uid);
    } else if (delivery.type === TYPE_DISCONNECT) {
      this.lifecycle.remoteLeft(this.sim.now);
    }
    this.hooks.deliver(delivery);
  }

  /** docs/sources.md 12: the server echoes the client's type-0x00 identity message (switch keepalive.serverEcho). */
  private answerIdentity(reliable: boolean): void {
    if (
      this.role !== 'server' ||
      this.lifecycle.state !== 'open' ||
      !this.switches.keepalive.serverEcho ||
      this.planted.skipKeepaliveEcho
    )
      return;
    const keepalive = this.switches.keepalive;
    if (this.sendKeepalive(identityMessage(this.identity, this.ownPeerId, reliable), keepalive.echoPath))
      this.counters.keepalivesEchoed++;
  }

  /** Queues a keepalive, or holds it for the end of the next datagram (path outside-queues). */
  private sendKeepalive(shape: KeepaliveShape, path: KeepalivePath): boolean {
    const uid = shape.reliable ? this.hooks.newUid(true, true) : -1;
    const sent =
      path === 'first-send-queue'
        ? this.sendMessage(shape.type, shape.payload, shape.reliable, shape.ordered, uid)
        : this.sendHelper.holdOutOfBand(shape, uid);
    if (sent) {
      this.counters.keepalivesSent++; // echoes included; keepalivesEchoed counts those alone
      if (!shape.reliable) this.hooks.sentUnreliable?.();
    } else if (uid >= 0) {
      this.hooks.refused(uid);
    }
    return sent;
  }

  private updateMemoryMax(): void {
    const bytes = this.memoryBytes();
    if (bytes > this.counters.memoryBytesMax) this.counters.memoryBytesMax = bytes;
    if (bytes > this.intervalPeaks.memoryBytes) this.intervalPeaks.memoryBytes = bytes;
  }

  /** Peer gone: every unacknowledged reliable message is given up, all queues freed. */
  private shutDown(state: 'closed' | 'timed-out' | 'gave-up' | 'halted', cause: EndCause): void {
    this.ended = cause;
    this.sendHelper.giveUpWaiting();
    this.retransmitQueue.clear();
    this.ackOutbox.clear();
    this.receiver.clear();
    this.lifecycle.ended(state);
  }
}
