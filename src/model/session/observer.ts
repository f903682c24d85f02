// What a run shows to observers (metrics recorder, wire trace). Observers only
// read; the simulation never depends on them, so adding one cannot change a run.
// Every event names the connection it happened on: `client` is the client's
// number (1-based) in the scenario. Observers get read-only views:
// a peer's counters, gauges and state, never the transport itself.
import type { AckMessage, DataMessage, Located } from '../../core/codec/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { DropCause } from '../link/index.js';
import type {
  SendNote,
  OutgoingMessage,
  AckOutcome,
  ConnectionState,
  Role,
  PeerReadout,
  PeerCounters,
  PeerGauges,
} from '../transport/index.js';

/** A peer, or a host's total over its peers, as observers see it: read-only, and live (read at the call, or later for the end values). */
export interface PeerView extends PeerReadout {
  readonly counters: Readonly<PeerCounters>;
  gauges(): Readonly<PeerGauges>;
}

/** One client's connection as observers see it: both ends, read-only. */
export interface ConnectionView {
  readonly client: number;
  readonly clientPeer: PeerView;
  readonly serverPeer: PeerView;
}

/** The view of `peer` handed to observers: its readout only, so an observer cannot reach (or drive) the transport behind it. */
export function peerView(peer: PeerReadout): PeerView {
  return Object.freeze({
    get counters() {
      return peer.counters;
    },
    gauges: () => peer.gauges(),
    get state() {
      return peer.state;
    },
    get intervalPeaks() {
      return peer.intervalPeaks;
    },
  });
}

export interface SessionObserver {
  /** A datagram left `from`'s transport on client `client`'s connection; `notes` is lent for the call (copy to keep). */
  datagramSent?(
    timeUs: Micros,
    from: Role,
    bytes: Uint8Array,
    uids: readonly number[],
    notes: readonly SendNote[],
    client: number,
  ): void;
  /** A datagram (or duplicate copy) reached `to`. */
  datagramArrived?(timeUs: Micros, to: Role, bytes: Uint8Array, duplicate: boolean, client: number): void;
  /** The link dropped a datagram travelling from `from`. */
  datagramDropped?(timeUs: Micros, from: Role, bytes: Uint8Array, cause: DropCause, client: number): void;
  /** A message-scope drop rule rewrote a datagram from `from`. */
  datagramRewritten?(timeUs: Micros, from: Role, before: Uint8Array, after: Uint8Array, client: number): void;
  /** `at` processed an ACK; `cleared` is the retransmit entry it removed, if any (read-only, lent for the call), and `outcome` why. */
  ackProcessed?(
    timeUs: Micros,
    at: Role,
    ack: AckMessage,
    cleared: Readonly<OutgoingMessage> | null,
    outcome: AckOutcome,
    client: number,
  ): void;
  duplicateReceived?(timeUs: Micros, at: Role, message: Located<DataMessage>, client: number): void;
  stateChanged?(timeUs: Micros, role: Role, state: ConnectionState, client: number): void;
  /** The server accepted client `client`'s connection and gave it `slot`. */
  connectionAccepted?(timeUs: Micros, client: number, slot: number): void;
  /**
   * Once per simulated second (and at the end): `totals` are the server's total
   * over its connections and the clients' total (with one client, exactly that
   * connection's two peers); `connections` has each client's two ends.
   */
  sample?(timeUs: Micros, totals: Readonly<Record<Role, PeerView>>, connections: readonly ConnectionView[]): void;
}
