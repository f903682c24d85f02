// The named readings of the stock model that `reproduce ack-outbox` ranks.
// A reading is a combination of the open-reading switches
// (transport/switches.ts), and, where a reading is about timing or the game
// layer, transport parameters and traffic fields every experiment runs with.
import { QUEUED_RELIABLE_READINGS, STOCK_RETRANSMIT } from '../../model/transport/index.js';
import type { KeepalivePolicy, SwitchPatch, TransportSwitches } from '../../model/transport/index.js';

export interface Reading {
  readonly name: string;
  readonly description: string;
  /** Every open-reading switch, set explicitly: a row does not depend on what the stock preset adopts. */
  readonly switches: SwitchPatch;
  /** Transport parameters every experiment of this reading runs with (scenario `transport` block). */
  readonly transport: Readonly<Record<string, unknown>>;
  /** Traffic fields every experiment runs with (scenario `traffic` block). */
  readonly traffic: Readonly<Record<string, unknown>>;
  /**
   * The client's update period in the loopback experiments (the join and the Disconnect flow), for
   * the whole run, the join included: not measured. null = the scenarios' own (the
   * built-in loopback join at 1 ms, which the timeline of docs/sources.md 33 needs, then 10 ms).
   */
  readonly loopbackClientMs: number | null;
  /** The clients' update period in the 34-minute session; null = the server's (docs/sources.md 13: 95 ms). */
  readonly sessionClientMs: number | null;
  /** Traffic fields of the 34-minute session experiment only (valentines), e.g. fields of its ship deaths. */
  readonly sessionTraffic: Readonly<Record<string, unknown>>;
  /**
   * A fact the reading takes from outside docs/sources.md, or null. Such a reading is
   * measured and ranked like any other, but the stock preset cannot follow it
   * until docs/sources.md records the fact.
   */
  readonly beyondDecisions: string | null;
}

type OpenReadings = Pick<TransportSwitches, keyof typeof QUEUED_RELIABLE_READINGS | 'retransmit' | 'fragmentAckCause'>;
type Patch = SwitchPatch & { keepalive?: Partial<KeepalivePolicy> };
type Timing = Omit<Reading, 'name' | 'description' | 'switches' | 'sessionTraffic' | 'beyondDecisions'>;

/** The "queued-reliable" readings (QUEUED_RELIABLE_READINGS), with the stock fragment cause. */
const QUEUED_RELIABLE: OpenReadings = {
  ...QUEUED_RELIABLE_READINGS,
  retransmit: STOCK_RETRANSMIT,
  fragmentAckCause: 'matcher-rejects-fragments',
};
/**
 * The documents' own timing, before calibration: the peer removed 5 s after a
 * Disconnect (the 8 sends of docs/sources.md 21), the round-2 response ~700 ms after
 * its request (the join table).
 */
const DOCUMENTED_TIMING: Timing = {
  transport: { disconnectedPeerLingerMs: 5000 },
  traffic: { treeHashing: 'concurrent', round2ThinkMs: 700, serverChecks: 'concurrent' },
  loopbackClientMs: 10,
  sessionClientMs: null,
};

function merge(base: OpenReadings, patch: Patch): OpenReadings {
  return {
    ...base,
    ...patch,
    keepalive: { ...base.keepalive, ...patch.keepalive },
    retransmit: { ...base.retransmit, ...patch.retransmit },
  } as OpenReadings;
}

function row(name: string, description: string, switches: OpenReadings, timing: Timing): Reading {
  return { name, description, switches, ...timing, sessionTraffic: {}, beyondDecisions: null };
}

const LIFETIME = { messageLifetime: 'peer-timeout' } as const;

/**
 * The baseline that ties are broken against: the keepalive unreliable and outside
 * the queues, unACKed messages dropped at the peer timeout. These are the stock
 * readings without the measurements of docs/sources.md 25–29, so a reading must earn
 * each change from them.
 */
const UNRELIABLE_KEEPALIVE = merge(QUEUED_RELIABLE, {
  ...LIFETIME,
  keepalive: { reliable: false, path: 'outside-queues', echoPath: 'outside-queues' },
});

/**
 * The best reading of the table (docs/calibration.md#choosing-the-stock-readings): the captured keepalive
 * (docs/sources.md 26) through the ordinary send path (18), the Connect ACKed one
 * update after the reply (26), the Disconnect's peer removed 4.16 s after (28),
 * the round-2 response ready 669 ms after its request (the timeline's +705 ms,
 * docs/sources.md 33), in time to leave with the second send of the request's ACK
 * (the captured 418-byte datagram), and the loopback scenarios' own update periods
 * (both hosts every 1 ms while they join: the timeline's +1 ms replies). The echo
 * stays outside the queues, as in the baseline: no observation tells the two paths apart.
 */
const CALIBRATED = merge(QUEUED_RELIABLE, {
  ...LIFETIME,
  keepalive: { reliable: true, path: 'first-send-queue', echoPath: 'outside-queues' },
  connectAck: 'after-reply',
});
const CALIBRATED_TIMING: Timing = {
  transport: { disconnectedPeerLingerMs: 4160 },
  traffic: { treeHashing: 'concurrent', round2ThinkMs: 669, serverChecks: 'concurrent' },
  loopbackClientMs: null,
  sessionClientMs: null,
};
const OUTSIDE = { keepalive: { path: 'outside-queues', echoPath: 'outside-queues' } } as const;
const NO_PASS_ONE = { gateOpeners: ['retransmits', 'first-sends'] } as const;

/** A variant of the calibrated reading: one change, named. */
function variant(name: string, change: string, patch: Patch, timing: Partial<Timing> = {}): Reading {
  return row(name, `calibrated, but ${change}`, merge(CALIBRATED, patch), {
    ...CALIBRATED_TIMING,
    ...timing,
    transport: { ...CALIBRATED_TIMING.transport, ...timing.transport },
    traffic: { ...CALIBRATED_TIMING.traffic, ...timing.traffic },
  });
}

/**
 * A public write-up of ship deaths (not in docs/sources.md 32, which gives the self-destruct's
 * burst only): a weapon kill, 55 of the session's 59 deaths, sends every player an
 * ObjectExplodingEvent, 12–14 subsystem events (13 here), a score change and an Explosion.
 */
const WEAPON_KILL_BURST = { ObjectExplodingEvent: 1, SubsystemEvent: 13, Score: 1, Explosion: 1 };
const WEAPON_KILL_FACT =
  'a public write-up of ship deaths: a weapon kill sends every player an ObjectExplodingEvent, 12–14 subsystem events, a score change and an Explosion';

/**
 * A variant of the calibrated reading whose session experiments change the ship deaths of
 * valentines (docs/sources.md 32): `deathsFields` are fields of its traffic.deaths.
 */
function deaths(
  name: string,
  change: string,
  deathsFields: Record<string, unknown>,
  beyondDecisions: string | null,
): Reading {
  const sessionTraffic = Object.fromEntries(Object.entries(deathsFields).map(([k, v]) => [`deaths.${k}`, v]));
  return { ...variant(name, change, {}), sessionTraffic, beyondDecisions };
}

export const READINGS: readonly Reading[] = [
  row(
    'read-on-arrival',
    'datagrams read on arrival, 95 ms updates everywhere, the remote removed right after its Disconnect',
    merge(QUEUED_RELIABLE, { receiveTiming: 'on-arrival' }),
    {
      ...DOCUMENTED_TIMING,
      transport: { updatePeriodMs: { server: 95, client: 95 }, disconnectedPeerLingerMs: 0 },
      loopbackClientMs: 95,
    },
  ),
  row(
    'queued-reliable',
    'the real update loop with the keepalive reliable, queued and echoed; messages live all session',
    QUEUED_RELIABLE,
    DOCUMENTED_TIMING,
  ),
  row(
    'unreliable-keepalive',
    'the baseline: unACKed messages dropped at 45 s; keepalive unreliable, outside the queues',
    UNRELIABLE_KEEPALIVE,
    DOCUMENTED_TIMING,
  ),
  row(
    'calibrated',
    'lifetime; the captured keepalive, queued (its echo after pass 2); Connect ACKed after the reply; removal 4.16 s after a Disconnect; round-2 response after 669 ms; the server answers responses r2 and 0xFF after 457 and 46 ms; 1 ms updates in the loopback join',
    CALIBRATED,
    CALIBRATED_TIMING,
  ),
  variant('outside-queues', 'the keepalive and its echo are written after pass 2, never opening the gate', OUTSIDE),
  variant('echo-queued', 'the echo goes through the first-send queue', { keepalive: { echoPath: 'first-send-queue' } }),
  variant('no-pass-one', 'pass 2 is opened only by retransmits and first sends', NO_PASS_ONE),
  variant(
    'no-pass-one+outside',
    'pass 2 is opened only by retransmits and first sends, and the keepalive and its echo never open it',
    { ...NO_PASS_ONE, ...OUTSIDE },
  ),
  variant('every-datagram', 'every datagram carries each entry below 3 sends', { ackCarriage: 'every-datagram' }),
  variant('every-datagram-all', 'every datagram carries every entry, dead-zone ones whenever pass 2 runs', {
    ackCarriage: 'every-datagram-all',
  }),
  variant('no-connect-ack', 'the Connect is never ACKed (the connect reply answers it)', { connectAck: 'none' }),
  variant(
    'round2-700ms',
    'the round-2 response is ready 700 ms after its request',
    {},
    { traffic: { round2ThinkMs: 700 } },
  ),
  variant(
    'loopback-client-10ms',
    'the loopback client updates every 10 ms, the round-2 response after 675 ms',
    {},
    { loopbackClientMs: 10, traffic: { round2ThinkMs: 675 } },
  ),
  variant(
    'loopback-client-33ms',
    'the loopback client updates every 33 ms (30 Hz), the round-2 response after 700 ms',
    {},
    { loopbackClientMs: 33, traffic: { round2ThinkMs: 700 } },
  ),
  variant(
    'hashing-in-update',
    'the client hashes recursive checksum rounds inside its update (700 ms for round 2)',
    {},
    { traffic: { treeHashing: 'in-update', round2ThinkMs: 700 } },
  ),
  variant(
    'no-server-checks',
    'the server answers the round 2 and 0xFF responses in its next update, as every other (the update loop alone)',
    {},
    { traffic: { serverChecks: 'none' } },
  ),
  variant(
    'server-checks-in-update',
    'the server spends its 457 and 46 ms on the round 2 and 0xFF responses inside its update, so its loop waits',
    {},
    { traffic: { serverChecks: 'in-update' } },
  ),
  variant(
    'fragments-over-client-cycle',
    'the server waits for the whole round 2 response, whose fragments the client sends one per update, every 230 ms; no server time',
    {},
    { loopbackClientMs: 230, traffic: { serverChecks: 'none' } },
  ),
  variant(
    'linger-5s',
    'the peer is removed 5 s after a Disconnect (the 8 sends of docs/sources.md 21)',
    {},
    { transport: { disconnectedPeerLingerMs: 5000 } },
  ),
  variant('idle-first-sends', 'only datagrams with a first send reset the keepalive clock', {
    keepalive: { idleCounts: 'first-sends' },
  }),
  variant('idle-reliable', 'only reliable sends reset the keepalive clock', {
    keepalive: { idleCounts: 'reliable-messages' },
  }),
  variant('clients-30hz', 'the clients of the 34-minute session update every 33 ms', {}, { sessionClientMs: 33 }),
  variant('2-datagrams', 'two datagrams per update', {}, { transport: { datagramsPerUpdate: 2 } }),
  variant('no-fragment-resend', 'no fragment is ever re-sent: the fragment ACKs match', { fragmentAckCause: 'none' }),
  variant('session-lifetime', 'unACKed messages live all session', { messageLifetime: 'session' }),
  variant(
    'type-0x02',
    'the idle keepalive is the decompiled type-0x02 message, not echoed, and only reliable sends reset its clock',
    { keepalive: { message: 'type-0x02', idleCounts: 'reliable-messages' } },
  ),
  variant(
    'timing-notes',
    'the docs/sources.md 20 timing notes: 1.0 s retransmit base, dropped after 9 tries, otherwise all session',
    { messageLifetime: 'session', retransmit: { baseMs: 1000, retryLimit: 9 } },
  ),
  deaths(
    'deaths-unfed',
    "the server sends a player on the ship-selection screen after a death nothing, as in the join's selection",
    { whileDead: 'nothing' },
    null,
  ),
  deaths(
    'weapon-kill-burst',
    "every death sends each player the weapon kill's 16 messages (ObjectExplodingEvent, 13 subsystem events, score, Explosion)",
    { burst: WEAPON_KILL_BURST },
    WEAPON_KILL_FACT,
  ),
];

/** The reading the stock preset adopts (transport/switches.ts CALIBRATED_READINGS). */
export const STOCK_READING = 'calibrated';

/** The baseline reading, for the tie-break: the fewest changes from it. */
export const BASELINE_READING = 'unreliable-keepalive';

/** Leaf settings (switches, transport, traffic, periods) in which two readings differ. */
export function changesBetween(a: Reading, b: Reading): string[] {
  const flat = (r: Reading): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (prefix: string, value: unknown): void => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        for (const [k, v] of Object.entries(value)) walk(prefix ? `${prefix}.${k}` : k, v);
      else out[prefix] = JSON.stringify(value);
    };
    walk('', {
      ...r.switches,
      transport: r.transport,
      traffic: r.traffic,
      loopbackClientMs: r.loopbackClientMs,
      sessionClientMs: r.sessionClientMs,
      sessionTraffic: r.sessionTraffic,
    });
    return out;
  };
  const fa = flat(a);
  const fb = flat(b);
  return [...new Set([...Object.keys(fa), ...Object.keys(fb)])].filter((k) => fa[k] !== fb[k]).sort();
}

export function readingNamed(name: string): Reading | undefined {
  return READINGS.find((r) => r.name === name);
}

/** How an experiment runs a reading: the stock preset with the reading's switches, and a seed. */
export interface RunWith {
  readonly preset: 'stock';
  readonly switches: Reading['switches'];
  readonly seed: number;
}
