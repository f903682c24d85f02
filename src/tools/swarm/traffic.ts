// The run's traffic: the reliable message rate and how it is packed, the phases (join, an
// optional lobby, the traffic region, the quiet tail) and how long the tail must last.
import { ceilToSecondMs, msToSeconds, perSecondOverMs, secondsToMs, roundToSecondMs } from '../../core/engine/index.js';
import { MAX_UNFRAGMENTED_PAYLOAD_BYTES } from '../../core/codec/index.js';
import type { Draft } from './draft.js';
import { MULTI_MAX_RATE } from './clients.js';
import { TICK_MS } from './timing.js';

export interface Rate {
  /** As the combat phase takes it: messages per second, or a named rate. */
  readonly phaseRate: number | 'measured' | 'heavy';
  /** Reliable messages per second, both peers together. */
  readonly perSecond: number;
  /** 500/s or more. */
  readonly high: boolean;
  /** The 2,500/s seq aliasing probe (see drawRate). */
  readonly aliasingProbe: boolean;
  readonly clientShare: number;
  readonly arrival: 'periodic' | 'poisson';
  /** Clients in the session: more than one only at combat rates up to MULTI_MAX_RATE. */
  readonly clients: number;
  /** Reliable events per second on one connection, client to server (its own) and server to client (the server's and the relayed ones). */
  readonly c2sPerSecond: number;
  readonly s2cPerSecond: number;
}

/** `wantedClients` comes from the run's client stream (clients.ts); it draws nothing here. */
export function drawRate(d: Draft, wantedClients = 1): Rate {
  const { r, classes } = d;
  const rateClass = r.weighted([
    ['measured', 30],
    ['low', 22],
    ['heavy', 16],
    ['medium', 16],
    ['high', 12],
  ] as const);
  let phaseRate: number | 'measured' | 'heavy';
  let perSecond: number;
  switch (rateClass) {
    case 'measured':
      phaseRate = 'measured';
      perSecond = 4.9;
      break;
    case 'heavy':
      phaseRate = 'heavy';
      perSecond = 60;
      break;
    case 'low':
      perSecond = phaseRate = r.float(1, 20, 1);
      break;
    case 'medium':
      perSecond = phaseRate = r.int(100, 400);
      break;
    case 'high':
      perSecond = phaseRate = r.chance(0.35) ? 2_500 : r.int(500, 2_500);
      break;
  }
  const high = perSecond >= 500;
  // The 2,500/s aliasing probe: a long (but survivable) outage under the full rate, 95% from the client,
  // so that more than half the u16 seq space is outstanding when the link comes back; the first new
  // messages after it then carry seqs more than 32,768 ahead of what the receiver expects (unless a
  // send window holds them back).
  const aliasingProbe = high && r.chance(0.22);
  if (aliasingProbe) perSecond = phaseRate = 2_500;
  classes.add(
    high
      ? perSecond === 2_500
        ? 'rate 2500/s'
        : 'rate 500-2499/s'
      : perSecond >= 100
        ? 'rate 100-400/s'
        : 'rate <= 60/s',
  );
  const clientShare = aliasingProbe ? 0.95 : high ? r.float(0.1, 0.9, 2) : r.float(0.25, 0.75, 2);
  const arrival = r.chance(0.2) ? 'periodic' : 'poisson';
  const clients = perSecond <= MULTI_MAX_RATE ? wantedClients : 1;
  // The server relays each player's events to the N - 1 others (docs/scenarios.md#multi-player-sessions).
  const c2sPerSecond = perSecond * clientShare;
  const s2cPerSecond = perSecond * (1 - clientShare + (clients - 1) * clientShare);
  // Bytes per second one peer offers at most (StateUpdates ~49/s of ~25 bytes, events ~30 bytes each).
  let offeredBytesPerSecond = 1_500 + perSecond * Math.max(clientShare, 1 - clientShare) * 32;
  let raise = perSecond > 60;
  if (clients > 1) {
    // Per connection, with the relay, plus ~36 ACK bytes per event received: one 505-byte
    // datagram per update (~5,300 B/s) must stay well below that load, or the outboxes run away.
    offeredBytesPerSecond =
      1_500 + Math.max(c2sPerSecond * 32 + s2cPerSecond * 36, s2cPerSecond * 32 + c2sPerSecond * 36);
    raise = offeredBytesPerSecond > 2_500;
  }
  if (raise) {
    // Enough datagrams per update for the rate to flow (each ~505 bytes, ~10.5 updates/s), 3x headroom.
    d.transport.datagramsPerUpdate = Math.min(
      64,
      Math.ceil((3 * offeredBytesPerSecond) / (MAX_UNFRAGMENTED_PAYLOAD_BYTES * perSecondOverMs(1, TICK_MS))),
    );
    if (d.transport.datagramsPerUpdate > 1) classes.add('datagramsPerUpdate raised');
  }
  return { phaseRate, perSecond, high, aliasingProbe, clientShare, arrival, clients, c2sPerSecond, s2cPerSecond };
}

/**
 * Smaller fragments: combat events fragment too. Not below 24 bytes: a StateUpdate (15-25 bytes
 * whole, at most 22 of payload) over the chunk size would be fragmented and so forced reliable,
 * and the quiet tail would no longer be quiet.
 */
export function drawFragmentChunk(d: Draft, high: boolean): void {
  if (!high && d.r.chance(0.12)) {
    d.transport.fragmentChunkBytes = d.r.int(24, 48);
    d.classes.add('small fragments');
  }
}

export interface Region {
  /** Length of the traffic region (combat, perhaps split by a lull). */
  readonly regionMs: number;
  /** Length of the lobby before it (0: none). */
  readonly lobbyMs: number;
  readonly lobbyChat: number;
  /** The region has started by then whatever the join's length. */
  readonly startLatestMs: number;
  /** The region lasts at least until then. */
  readonly endEarliestMs: number;
}

export interface RegionInputs {
  readonly rate: Rate;
  readonly joinAllowanceMs: number;
  /** Combat time the windows need (windows.ts). */
  readonly windowsMs: number;
  /** Phase 1 never starts before this (timing.ts joinMinMs). */
  readonly joinMinMs: number;
}

/** The traffic region: long enough to hold every window after the join's slack. */
export function drawRegion(d: Draft, o: RegionInputs): Region {
  const { r } = d;
  const joinSlackMs = o.joinAllowanceMs - o.joinMinMs;
  // (The aliasing probe keeps sending for 3 s after its outage: new seqs must meet the backlog.)
  const minRegionMs = joinSlackMs + o.windowsMs + (o.rate.aliasingProbe ? 3_000 : 2_000);
  let regionMs: number = o.rate.high ? secondsToMs(r.int(5, 15)) : secondsToMs(r.int(20, 60));
  regionMs = Math.max(regionMs, ceilToSecondMs(minRegionMs));
  const lobbyMs = r.chance(0.35) ? secondsToMs(r.int(3, 15)) : 0;
  const lobbyChat = lobbyMs > 0 ? r.int(0, 30) : 0;
  const startLatestMs = o.joinAllowanceMs + lobbyMs;
  const endEarliestMs = o.joinMinMs + lobbyMs + regionMs;
  return { regionMs, lobbyMs, lobbyChat, startLatestMs, endEarliestMs };
}

export interface PhaseInputs {
  readonly rate: Rate;
  readonly region: Region;
  /** The run has no outage and no windowed rule. */
  readonly windowless: boolean;
  readonly disconnectTail: boolean;
}

export interface Phases {
  readonly phases: unknown[];
  /** The tail phase has started by then whatever the join's length. */
  readonly tailStartLatestMs: number;
}

export function drawPhases(d: Draft, o: PhaseInputs): Phases {
  const { r, classes } = d;
  const { regionMs, lobbyMs } = o.region;
  const phases: unknown[] = ['join'];
  if (lobbyMs > 0)
    phases.push({ kind: 'lobby', duration: `${msToSeconds(lobbyMs)}s`, chatPerMinute: o.region.lobbyChat });
  const combat = (ms: number) => ({
    kind: 'combat',
    duration: `${msToSeconds(ms)}s`,
    reliablePerSecond: o.rate.phaseRate,
    clientShare: o.rate.clientShare,
    arrival: o.rate.arrival,
  });
  // Traffic region: one combat, or (without windows) two combats around a lull of the same total length.
  const splitRegion = !o.rate.high && o.windowless && regionMs >= 12_000 && r.chance(0.2);
  if (splitRegion) {
    const lullMs = secondsToMs(r.int(2, 8));
    const firstMs = roundToSecondMs((regionMs - lullMs) / 2);
    phases.push(
      combat(firstMs),
      { kind: 'lull', duration: `${msToSeconds(lullMs)}s` },
      combat(regionMs - lullMs - firstMs),
    );
    classes.add('combat split by a lull');
  } else {
    phases.push(combat(regionMs));
  }
  if (lobbyMs > 0) classes.add('lobby before combat');
  // The tail phase starts, at the latest, when the region ends (plus a quiet lull before a disconnect).
  let tailStartLatestMs = o.region.startLatestMs + regionMs;
  if (o.disconnectTail) {
    if (r.chance(0.3)) {
      const quietMs = secondsToMs(r.int(2, 8));
      phases.push({ kind: 'lull', duration: `${msToSeconds(quietMs)}s` });
      tailStartLatestMs += quietMs;
      classes.add('disconnect after a quiet lull');
    } else {
      classes.add('disconnect right after combat');
    }
    phases.push('disconnect');
  } else {
    // StateUpdates keep both peers sending (so no keepalives: no reliable traffic at all), at a
    // lower rate than combat's 49/s to keep the tail cheap to simulate.
    phases.push({ kind: 'lull', stateUpdatesPerSecond: 10 });
    classes.add('tail: endless lull');
  }
  return { phases, tailStartLatestMs };
}

export interface TailInputs {
  readonly maxIntervalMs: number;
  readonly high: boolean;
  readonly bandwidth: boolean;
  readonly jitterMs: number;
  /** A disconnect tail: the peer timeout, which bounds a drain (its deadline); 0 for an endless lull. */
  readonly drainDeadlineMs: number;
}

/**
 * The quiet tail: several retransmit rounds at the longest interval, or the drain to complete.
 * A drain the link starves ends at its deadline, the peer timeout after it began, and then
 * lingers up to two retransmit intervals: the tail holds that too, so a disconnect either
 * completes or ends the connection within the run (docs/stock-and-fixed.md#the-fixed-mode-promise).
 */
export function quietTailMs(o: TailInputs): number {
  const quietMs = 25_000 + 5 * o.maxIntervalMs + (o.high ? 10_000 : 0) + (o.bandwidth ? 5_000 : 0) + o.jitterMs * 10;
  return o.drainDeadlineMs === 0 ? quietMs : Math.max(quietMs, o.drainDeadlineMs + 2 * o.maxIntervalMs + 5_000);
}
