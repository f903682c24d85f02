// A dedicated server: one update loop over one peer state per connected client
// (docs/sources.md 23). It accepts a connection when a datagram from a
// client without a slot arrives, assigns the next slot (2, 3, …; the ConnectAck
// carries it), Boots the others when one times out (docs/sources.md 19), and
// forgets a connection once it has ended.
import { PEER_ID_FIRST_CLIENT, PEER_ID_UNASSIGNED } from '../../core/codec/index.js';
import type { MillisIn, Scheduler } from '../../core/engine/index.js';
import { connectionEnded } from './lifecycle.js';
import type { ConnectionState } from './lifecycle.js';
import type { PeerTransport } from './peer.js';
import { UpdateLoop } from './update-loop.js';

/** Slots are a byte and 0xFF means "unassigned": at most 253 clients (2..254). */
const MAX_SLOT = 0xfe;

export interface ServerHostEvents {
  /** A connection was accepted and given `slot`. */
  accepted?(connection: number, slot: number): void;
  /** The server sent Boots for a timed-out connection: one per remaining peer. */
  booted?(connection: number, slot: number, boots: number): void;
}

export class ServerHost {
  readonly loop: UpdateLoop;
  /** Datagrams from a connection the server does not hold (never connected, or already removed). */
  strayDatagrams = 0;
  /** Boot messages queued (one per remaining peer per timed-out peer). */
  bootsSent = 0;
  private readonly slots: Array<number | null>;
  /** Accept order: the loop and Boots visit connections in it. */
  private readonly accepted: number[] = [];
  private nextSlot = PEER_ID_FIRST_CLIENT;
  /** Slots of replaced connections, given out again lowest first (a live server's players come and go). */
  private readonly freeSlots: number[] = [];

  /** `peers[i]` is the server's peer state for connection i, used once that client connects. */
  constructor(
    sim: Scheduler,
    periodMs: MillisIn,
    private readonly peers: PeerTransport[],
    private readonly events: ServerHostEvents = {},
  ) {
    this.loop = new UpdateLoop(sim, periodMs, true);
    this.slots = peers.map(() => null);
  }

  /** The slot connection `i` was given, or null before it connected. */
  slotOf(connection: number): number | null {
    return this.slots[connection];
  }

  /** Connection indexes in accept order. */
  acceptedConnections(): readonly number[] {
    return this.accepted;
  }

  /** A datagram from connection `connection` reached the server's socket. */
  arrive(connection: number, bytes: Uint8Array, uids: readonly number[]): void {
    if (this.slots[connection] === null) {
      // Only a client still without a slot (header peer id 0xFF) opens a connection.
      if (
        bytes.length === 0 ||
        bytes[0] !== PEER_ID_UNASSIGNED ||
        (this.nextSlot > MAX_SLOT && this.freeSlots.length === 0)
      ) {
        this.strayDatagrams++;
        return;
      }
      this.accept(connection);
    } else if (connectionEnded(this.peers[connection].state)) {
      this.strayDatagrams++; // the server has deleted this peer (docs/sources.md 19)
      return;
    }
    this.peers[connection].arrive(bytes, uids);
  }

  /**
   * Called with every state change of a connection's peer (the session wires it).
   * docs/sources.md 19: on a timeout, Boot to every other peer; then the peer is
   * deleted (its shutdown freed its queues; the loop drops it after this update).
   * A fixed server that gave up on the peer (onGiveUp: disconnect) has lost it
   * the same way, without a goodbye, and Boots it too.
   */
  connectionChanged(connection: number, state: ConnectionState): void {
    if (state !== 'timed-out' && state !== 'gave-up') return;
    const slot = this.slots[connection];
    if (slot === null || slot === undefined)
      throw new Error(`server-host: connection ${connection} ended without a slot`);
    let boots = 0;
    // Planted remove-without-boot (test-only): nobody is told.
    if (this.peers[connection].planted.removeWithoutBoot) return;
    for (const other of this.accepted) {
      if (other !== connection && this.peers[other].sendBoot(slot)) boots++;
    }
    this.bootsSent += boots;
    this.events.booted?.(connection, slot, boots);
  }

  /**
   * A live server gives an ended connection's place to a new client: `peer` is
   * the fresh peer state, and the next datagram without a slot opens it again
   * (with a new slot). The old peer already left the update loop when it ended.
   */
  replace(connection: number, peer: PeerTransport): void {
    if (!connectionEnded(this.peers[connection].state))
      throw new Error(`server-host: connection ${connection} replaced while ${this.peers[connection].state}`);
    this.peers[connection] = peer;
    const slot = this.slots[connection];
    if (slot !== null) {
      this.freeSlots.push(slot);
      this.freeSlots.sort((a, b) => a - b);
    }
    this.slots[connection] = null;
    const at = this.accepted.indexOf(connection);
    if (at >= 0) this.accepted.splice(at, 1);
  }

  private accept(connection: number): void {
    if (this.slots[connection] !== null) throw new Error(`server-host: connection ${connection} accepted twice`);
    const slot = this.freeSlots.shift() ?? this.nextSlot++;
    this.slots[connection] = slot;
    this.accepted.push(connection);
    const peer = this.peers[connection];
    peer.activate();
    this.loop.add(peer);
    this.events.accepted?.(connection, slot);
  }
}
