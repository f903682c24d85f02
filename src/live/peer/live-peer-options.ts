// What a live peer is given: its role, scenario and mode, its sockets and
// counterpart, and the run's limits (live-peer.ts runs it).
import type { Socket } from 'node:dgram';
import type { Micros, RandomStream } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { Role, TransportSwitches } from '../../model/transport/index.js';
import type { HostPort } from '../endpoint.js';
import type { WallClock } from '../wall-clock.js';
import type { WireRecord } from '../wire-log.js';
import type { ChecksumChecks } from './checksum-check.js';

export type StopReason = 'duration' | 'signal' | 'connection-ended' | 'error';

export interface LivePeerOptions {
  readonly role: Role;
  readonly scenario: Scenario;
  readonly switches: TransportSwitches;
  readonly seed: number;
  /** The sockets, bound where the user said (the CLI binds them): a server's one, or one per client. */
  readonly sockets: readonly Socket[];
  /** A client's server; null for a server (it answers whoever connects). */
  readonly remote: HostPort | null;
  /**
   * A server: the clients it serves (the k-th new address is client k; later ones are refused and counted).
   * A client side: the clients it plays, client k on `sockets[k - 1]`, each its own connection.
   */
  readonly clients: number;
  readonly durationUs: Micros | null;
  readonly clock?: WallClock;
  /** A server's check of checksum answers: their form (default), or every hash against the manifest too. */
  readonly checksums?: ChecksumChecks;
  /** Rounds a server checks by form alone whatever `checksums` says: bcsim's stand-ins for rounds a manifest file lacks. */
  readonly formOnlyRounds?: readonly number[];
  /** One line for stderr (no newline): what a server cannot take from a new address. Default: nothing. */
  readonly warn?: (line: string) => void;
  /** Bytes the wire log may hold (WireLog's default when absent). */
  readonly wireLogBytes?: number;
  /** Every datagram read or sent, as the wire log gets it (a soak's meter follows the session with it). */
  readonly onWire?: (record: WireRecord) => void;
  /** Bernoulli loss at our socket, both directions, from its own seeded stream: a lost datagram never left or was never read. */
  readonly loss?: { readonly probability: number; readonly stream: RandomStream };
  /**
   * A client side: a connection the server ended (removed, timed out) joins again this long
   * after, on a fresh connection from the same socket, as a player reconnects; null: it stays ended.
   */
  readonly rejoinAfterUs?: Micros | null;
}
