// What a run shows to observers (metrics recorder, wire trace). Observers only
// read; the simulation never depends on them, so adding one cannot change a run.
import type { AckMessage, DataMessage, Located } from '../codec/index.js';
import type { DropCause } from '../link/config.js';
import type { SendNote } from '../transport/datagram-builder.js';
import type { OutgoingMessage } from '../transport/outgoing.js';
import type { AckOutcome } from '../transport/retransmit-queue.js';
import type { ConnectionState, PeerTransport } from '../transport/peer.js';
import type { Role } from '../transport/roles.js';

export interface SessionObserver {
  /** A datagram left `from`'s transport. */
  datagramSent?(timeUs: number, from: Role, bytes: Uint8Array, uids: readonly number[], notes: readonly SendNote[]): void;
  /** A datagram (or duplicate copy) reached `to`. */
  datagramArrived?(timeUs: number, to: Role, bytes: Uint8Array, duplicate: boolean): void;
  /** The link dropped a datagram travelling from `from`. */
  datagramDropped?(timeUs: number, from: Role, bytes: Uint8Array, cause: DropCause): void;
  /** A message-scope drop rule rewrote a datagram from `from`. */
  datagramRewritten?(timeUs: number, from: Role, before: Uint8Array, after: Uint8Array): void;
  /** `at` processed an ACK; `cleared` is the retransmit entry it removed, if any, and `outcome` why. */
  ackProcessed?(timeUs: number, at: Role, ack: AckMessage, cleared: OutgoingMessage | null, outcome: AckOutcome): void;
  duplicateReceived?(timeUs: number, at: Role, message: Located<DataMessage>): void;
  stateChanged?(timeUs: number, role: Role, state: ConnectionState): void;
  /** Once per simulated second (and at the end), with both peers to read. */
  sample?(timeUs: number, peers: Readonly<Record<Role, PeerTransport>>): void;
}
