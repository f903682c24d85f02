// What a run shows to observers (metrics recorder, wire trace). Observers only
// read; the simulation never depends on them, so adding one cannot change a run.
// Every event names the connection it happened on: `client` is the client's
// number (1-based) in the scenario (issue 12).
import type { AckMessage, DataMessage, Located } from '../codec/index.js';
import type { DropCause } from '../link/config.js';
import type { SendNote } from '../transport/datagram-builder.js';
import type { OutgoingMessage } from '../transport/outgoing.js';
import type { AckOutcome } from '../transport/retransmit-queue.js';
import type { ConnectionState } from '../transport/peer.js';
import type { Role } from '../transport/roles.js';
import type { PeerReadout } from '../transport/totals.js';

/** One client's connection as observers see it: both ends, read-only. */
export interface ConnectionView {
  readonly client: number;
  readonly clientPeer: PeerReadout;
  readonly serverPeer: PeerReadout;
}

export interface SessionObserver {
  /** A datagram left `from`'s transport on client `client`'s connection. */
  datagramSent?(timeUs: number, from: Role, bytes: Uint8Array, uids: readonly number[], notes: readonly SendNote[], client: number): void;
  /** A datagram (or duplicate copy) reached `to`. */
  datagramArrived?(timeUs: number, to: Role, bytes: Uint8Array, duplicate: boolean, client: number): void;
  /** The link dropped a datagram travelling from `from`. */
  datagramDropped?(timeUs: number, from: Role, bytes: Uint8Array, cause: DropCause, client: number): void;
  /** A message-scope drop rule rewrote a datagram from `from`. */
  datagramRewritten?(timeUs: number, from: Role, before: Uint8Array, after: Uint8Array, client: number): void;
  /** `at` processed an ACK; `cleared` is the retransmit entry it removed, if any, and `outcome` why. */
  ackProcessed?(timeUs: number, at: Role, ack: AckMessage, cleared: OutgoingMessage | null, outcome: AckOutcome, client: number): void;
  duplicateReceived?(timeUs: number, at: Role, message: Located<DataMessage>, client: number): void;
  stateChanged?(timeUs: number, role: Role, state: ConnectionState, client: number): void;
  /** The server accepted client `client`'s connection and gave it `slot` (issue 12). */
  connectionAccepted?(timeUs: number, client: number, slot: number): void;
  /**
   * Once per simulated second (and at the end): `totals` are the server's total
   * over its connections and the clients' total (with one client, exactly that
   * connection's two peers); `connections` has each client's two ends.
   */
  sample?(timeUs: number, totals: Readonly<Record<Role, PeerReadout>>, connections: readonly ConnectionView[]): void;
}
