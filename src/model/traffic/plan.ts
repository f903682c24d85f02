// A session script: phases with their own rates and sizes, optionally cycled
//. Plain data, normalised by the scenario layer.
import { micros } from '../../core/engine/index.js';
import type { Micros, MillisIn } from '../../core/engine/index.js';
import { DEFAULT_MANIFEST } from './manifest.js';
import type { ChecksumManifest } from './manifest.js';

/**
 * The round-2 think time of the best reading: the reply is queued just before the second
 * send of the request's ACK (0.667 s after the first, at 1 ms loopback updates), as the
 * captured 418-byte datagram shows, so its first fragment leaves 670 ms after the request:
 * 35 ms before the timeline's +705 (docs/sources.md 33), inside its tolerance.
 */
const CALIBRATED_ROUND_2_THINK_MS = 669;

export type Arrival = 'poisson' | 'periodic';

/** A phase's network update periods per role (docs/sources.md 17); missing roles keep the scenario's. */
export interface UpdatePeriods {
  readonly server?: MillisIn;
  readonly client?: MillisIn;
}

/**
 * Without `client`: every client that has no late join of its own joins, one
 * joinStagger after another; the phase ends once all are in game. With `client`:
 * that client joins now while the game goes on, and the plan moves on at once.
 */
export interface JoinPhase {
  readonly kind: 'join';
  readonly client?: number;
  readonly updatePeriodMs?: UpdatePeriods;
}

/** Keepalives only, plus optional chat (docs/sources.md T4). */
interface LobbyPhase {
  readonly updatePeriodMs?: UpdatePeriods;
  readonly kind: 'lobby';
  /** null = until the run ends. */
  readonly durationUs: Micros | null;
  readonly chatPerMinute: number;
}

interface CombatPhase {
  readonly updatePeriodMs?: UpdatePeriods;
  readonly kind: 'combat';
  readonly durationUs: Micros | null;
  /** Unreliable StateUpdates per second in each direction. */
  readonly stateUpdatesPerSecond: number;
  /** Whole-message bytes, uniform in [min, max] (measured: typically 15–25, minimum 10). */
  readonly stateUpdateBytes: { readonly min: number; readonly max: number };
  /**
   * Reliable game messages per second on a connection with no other player in
   * the game, both directions together. Each player originates clientShare x this
   * (the server relays it to every other client); the server originates the rest
   * and sends it to every client. Each other player therefore adds
   * clientShare x this to every connection (docs/scenarios.md#multi-player-sessions).
   */
  readonly reliablePerSecond: number;
  readonly clientShare: number;
  readonly arrival: Arrival;
  /** The event kinds drawn (names of the measured mix, their weights kept); null = the whole mix. */
  readonly eventKinds: readonly string[] | null;
}

/** In game but quiet: StateUpdates continue, no reliable events. */
interface LullPhase {
  readonly updatePeriodMs?: UpdatePeriods;
  readonly kind: 'lull';
  readonly durationUs: Micros | null;
  readonly stateUpdatesPerSecond: number;
  readonly stateUpdateBytes: { readonly min: number; readonly max: number };
  readonly arrival: Arrival;
}

/**
 * In game, nobody doing anything: no StateUpdates, no reliable events, no chat.
 * Only keepalives and the transport's own re-sends go out, the
 * quiet in which the dead zone persists (ack-outbox-deadlock.md §2).
 */
interface QuietPhase {
  readonly kind: 'quiet';
  readonly updatePeriodMs?: UpdatePeriods;
  readonly durationUs: Micros | null;
}

/** A client (every client without `client`) leaves gracefully; the Disconnect opens the pass-2 gate. */
export interface DisconnectPhase {
  readonly kind: 'disconnect';
  readonly client?: number;
}

/** The client's host goes away without a word; the server times it out and Boots it (docs/sources.md 19). */
export interface TimeoutPhase {
  readonly kind: 'timeout';
  readonly client: number;
}

export type Phase = JoinPhase | LobbyPhase | CombatPhase | LullPhase | QuietPhase | DisconnectPhase | TimeoutPhase;

/** Phases that happen at an instant and never repeat. */
export function isEventPhase(phase: Phase): phase is JoinPhase | DisconnectPhase | TimeoutPhase {
  return phase.kind === 'join' || phase.kind === 'disconnect' || phase.kind === 'timeout';
}

/**
 * Where a client's hashing of a recursive checksum round runs (docs/sources.md 16 and
 * the join table, step 8: the round-2 response leaves ~700 ms after its request,
 * its first fragment in one datagram with the request's ACK). concurrent: the update
 * loop keeps running and the reply is queued after the think time; in-update: the
 * handler hashes inside the update that dispatched the request, so that loop waits.
 */
export type TreeHashing = 'concurrent' | 'in-update';
export const TREE_HASHINGS: readonly TreeHashing[] = ['concurrent', 'in-update'];

/**
 * How the server spends its time answering the round 2 and 0xFF checksum responses
 * (the +461 ms and +48 ms of docs/sources.md 33, which the update loop alone makes
 * +2 ms: join-timing.ts). concurrent: its game layer answers after that time while its
 * update loop keeps running (the fragments' ACKs leave at once); in-update: it works
 * inside the update that dispatched the response, so its loop waits, for every
 * connection; none: it answers in the next update, as for every other round.
 */
export type ServerChecks = 'concurrent' | 'in-update' | 'none';
export const SERVER_CHECKS: readonly ServerChecks[] = ['concurrent', 'in-update', 'none'];

/**
 * Ship deaths in combat phases (docs/sources.md 32). A death takes a player that has a
 * ship, and the server sends every player it feeds the death's burst at once. The ship
 * stays in the game as wreckage for its explosion: StateUpdates keep flowing both ways,
 * but the player starts no game message. When the explosion ends the server sends the
 * afterExplosion messages, and the player is on the ship-selection screen: it sends no
 * StateUpdates until it picks a ship, which sends the onPick messages (the server relays
 * them to the other players); its StateUpdates start 150 ms after the pick, as after a
 * join (docs/sources.md 32). The server never respawns it and sends no DestroyObject.
 */
export interface Deaths {
  /** Deaths per minute in the whole game. */
  readonly perMinute: number;
  /** How deaths arrive: poisson, or periodic (exactly perMinute x the phase's minutes). */
  readonly arrival: Arrival;
  /** The explosion: the ship is wreckage, StateUpdates continue (docs/sources.md 32: 9.5 s). */
  readonly explosionMs: number;
  /** From the end of the explosion to the pick of a new ship (after a join ~4.5 s; after a death not measured). */
  readonly selectionMs: number;
  /** What the server sends a player on the selection screen: the game as before, or nothing, as in the join's ship selection. */
  readonly whileDead: DeadPlayerFeed;
  /** Messages the server sends each fed player at the death: message kind -> count. */
  readonly burst: Readonly<Record<string, number>>;
  /** Messages the server sends each fed player when the explosion ends. */
  readonly afterExplosion: Readonly<Record<string, number>>;
  /** Messages the dead player sends the server when it picks its ship; the server relays them. */
  readonly onPick: Readonly<Record<string, number>>;
}
export type DeadPlayerFeed = 'game' | 'nothing';
export const DEAD_PLAYER_FEEDS: readonly DeadPlayerFeed[] = ['game', 'nothing'];
/** Most messages one of a death's bursts may hold: a datagram holds at most 255 messages (docs/sources.md 5). */
export const MAX_BURST_MESSAGES = 255;

export interface TrafficPlan {
  readonly phases: readonly Phase[];
  /** Client k (1-based) of the first join phase starts its join (k - 1) x this after it. */
  readonly joinStaggerUs: Micros;
  /** After the last phase, continue from this index; null = stop. */
  readonly repeatFrom: number | null;
  /** The checksum rounds of every join: what the server asks and the client answers (docs/sources.md 31). */
  readonly manifest: ChecksumManifest;
  readonly treeHashing: TreeHashing;
  /**
   * The client's think time for checksum round 2 (docs/sources.md J1: "~700 ms
   * later"). Whether its first fragment shares a datagram with the request's ACK
   * (the capture's 418 bytes) depends on it: a reply ready just after the ACK's
   * second send (0.667 s after its first) leaves with it.
   */
  readonly round2ThinkMs: number;
  readonly serverChecks: ServerChecks;
  /** Ship deaths in every combat phase; null = none. */
  readonly deaths: Deaths | null;
}

/** Reliable-rate presets: measured ~4.9/s (34-minute session), assumed ~60/s (ack-outbox-deadlock.md §5.3). */
export const RELIABLE_RATE_PRESETS = { measured: 4.9, heavy: 60 } as const;

/** The measured aggregate is ~98 StateUpdates/s; split evenly over the two directions. */
export const MEASURED_STATE_UPDATES_PER_DIRECTION = 49;

/** Players rarely connect in the same second. */
export const DEFAULT_JOIN_STAGGER_US = micros(2_000_000);

export const DEFAULT_PLAN: TrafficPlan = {
  joinStaggerUs: DEFAULT_JOIN_STAGGER_US,
  phases: [{ kind: 'join' }, { kind: 'lobby', durationUs: null, chatPerMinute: 0 }],
  repeatFrom: null,
  manifest: DEFAULT_MANIFEST,
  treeHashing: 'concurrent',
  // `reproduce ack-outbox` ranks it first: ready just after the ACK's second send (docs/calibration.md#choosing-the-stock-readings).
  round2ThinkMs: CALIBRATED_ROUND_2_THINK_MS,
  serverChecks: 'concurrent',
  deaths: null,
};
