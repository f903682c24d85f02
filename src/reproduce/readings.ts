// The named readings of the stock model that `reproduce ack-outbox` ranks
// (issue 10, item 3). A reading is a combination of the open-reading switches
// (transport/switches.ts), and, where a reading is about timing or the game
// layer, transport parameters and traffic fields every experiment runs with.
import { READINGS_BEFORE_ISSUE_10, STOCK_RETRANSMIT } from '../transport/index.js';
import type { KeepalivePolicy, SwitchPatch, TransportSwitches } from '../transport/index.js';

export interface Reading {
  readonly name: string;
  readonly description: string;
  /** Every open-reading switch, set explicitly: a row does not depend on what the stock preset adopts. */
  readonly switches: SwitchPatch;
  /** Transport parameters every experiment of this reading runs with (scenario `transport` block). */
  readonly transport: Readonly<Record<string, unknown>>;
  /** Traffic fields every experiment runs with (scenario `traffic` block). */
  readonly traffic: Readonly<Record<string, unknown>>;
  /** The client's update period on loopback (the join and the Disconnect flow): not measured (DECISIONS.md 17). */
  readonly loopbackClientMs: number;
  /** The clients' update period in the 34-minute session; null = the server's (DECISIONS.md 13: 95 ms). */
  readonly sessionClientMs: number | null;
}

type OpenReadings = Pick<TransportSwitches, keyof typeof READINGS_BEFORE_ISSUE_10 | 'retransmit' | 'fragmentAckCause'>;
type Patch = SwitchPatch & { keepalive?: Partial<KeepalivePolicy> };
type Timing = Omit<Reading, 'name' | 'description' | 'switches'>;

/** bcsim's earliest readings (READINGS_BEFORE_ISSUE_10), with the stock fragment cause. */
const HISTORY: OpenReadings = { ...READINGS_BEFORE_ISSUE_10, retransmit: STOCK_RETRANSMIT, fragmentAckCause: 'matcher-rejects-fragments' };
/** The timing every reading before DECISIONS.md 25–29 assumed. */
const HISTORY_TIMING: Timing = { transport: { disconnectedPeerLingerMs: 5000 }, traffic: { treeHashing: 'concurrent', round2ThinkMs: 700 }, loopbackClientMs: 10, sessionClientMs: null };

function merge(base: OpenReadings, patch: Patch): OpenReadings {
  return {
    ...base,
    ...patch,
    keepalive: { ...base.keepalive, ...patch.keepalive },
    retransmit: { ...base.retransmit, ...patch.retransmit },
  } as OpenReadings;
}

function row(name: string, description: string, switches: OpenReadings, timing: Timing): Reading {
  return { name, description, switches, ...timing };
}

const LIFETIME = { messageLifetime: 'peer-timeout' } as const;

/** The stock preset's readings before the newer measurements (DECISIONS.md 25–29). */
const PREVIOUS_STOCK = merge(HISTORY, { ...LIFETIME, keepalive: { reliable: false, path: 'outside-queues', echoPath: 'outside-queues' } });

/**
 * The best reading of the table (README "Calibration"): the captured keepalive
 * (DECISIONS.md 26) through the ordinary send path (18), the Connect ACKed one
 * update after the reply (26), the Disconnect's peer removed 4.16 s after (28),
 * and the round-2 response ready 675 ms after its request (the join table's
 * "~700 ms"), in time to leave with the second send of the request's ACK (the
 * captured 418-byte datagram). The echo stays outside the queues, as before: no
 * observation tells the two paths apart.
 */
const CALIBRATED = merge(HISTORY, {
  ...LIFETIME,
  keepalive: { reliable: true, path: 'first-send-queue', echoPath: 'outside-queues' },
  connectAck: 'after-reply',
});
const CALIBRATED_TIMING: Timing = { transport: { disconnectedPeerLingerMs: 4160 }, traffic: { treeHashing: 'concurrent', round2ThinkMs: 675 }, loopbackClientMs: 10, sessionClientMs: null };
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

export const READINGS: readonly Reading[] = [
  row('before-issue-10', 'bcsim before issue 10: datagrams read on arrival, 95 ms updates everywhere, the remote removed right after its Disconnect', merge(HISTORY, { receiveTiming: 'on-arrival' }), {
    ...HISTORY_TIMING,
    transport: { updatePeriodMs: { server: 95, client: 95 }, disconnectedPeerLingerMs: 0 },
    loopbackClientMs: 95,
  }),
  row('queued-reliable', "bcsim's earliest readings under the real update loop: keepalive reliable, queued and echoed; messages live all session", HISTORY, HISTORY_TIMING),
  row('previous-stock', 'the stock preset before DECISIONS.md 25–29: unACKed messages dropped at 45 s; keepalive unreliable, outside the queues', PREVIOUS_STOCK, HISTORY_TIMING),
  row('calibrated', 'lifetime; the captured keepalive, queued (its echo after pass 2); Connect ACKed after the reply; removal 4.16 s after a Disconnect; round-2 response after 675 ms', CALIBRATED, CALIBRATED_TIMING),
  variant('outside-queues', 'the keepalive and its echo are written after pass 2, never opening the gate', OUTSIDE),
  variant('echo-queued', 'the echo goes through the first-send queue', { keepalive: { echoPath: 'first-send-queue' } }),
  variant('no-pass-one', 'pass 2 is opened only by retransmits and first sends', NO_PASS_ONE),
  variant('no-pass-one+outside', 'pass 2 is opened only by retransmits and first sends, and the keepalive and its echo never open it', { ...NO_PASS_ONE, ...OUTSIDE }),
  variant('every-datagram', 'every datagram carries each entry below 3 sends', { ackCarriage: 'every-datagram' }),
  variant('every-datagram-all', 'every datagram carries every entry, dead-zone ones whenever pass 2 runs', { ackCarriage: 'every-datagram-all' }),
  variant('no-connect-ack', 'the Connect is never ACKed (the connect reply answers it)', { connectAck: 'none' }),
  variant('round2-700ms', 'the round-2 response is ready 700 ms after its request', {}, { traffic: { round2ThinkMs: 700 } }),
  variant('loopback-client-33ms', 'the loopback client updates every 33 ms (30 Hz), the round-2 response after 700 ms', {}, { loopbackClientMs: 33, traffic: { round2ThinkMs: 700 } }),
  variant('hashing-in-update', 'the client hashes recursive checksum rounds inside its update (700 ms for round 2)', {}, { traffic: { treeHashing: 'in-update', round2ThinkMs: 700 } }),
  variant('linger-5s', 'the peer is removed 5 s after a Disconnect (the 8 sends of DECISIONS.md 21)', {}, { transport: { disconnectedPeerLingerMs: 5000 } }),
  variant('idle-first-sends', 'only datagrams with a first send reset the keepalive clock', { keepalive: { idleCounts: 'first-sends' } }),
  variant('idle-reliable', 'only reliable sends reset the keepalive clock', { keepalive: { idleCounts: 'reliable-messages' } }),
  variant('clients-30hz', 'the clients of the 34-minute session update every 33 ms', {}, { sessionClientMs: 33 }),
  variant('2-datagrams', 'two datagrams per update', {}, { transport: { datagramsPerUpdate: 2 } }),
  variant('no-fragment-resend', 'no fragment is ever re-sent: the fragment ACKs match', { fragmentAckCause: 'none' }),
  variant('session-lifetime', 'unACKed messages live all session', { messageLifetime: 'session' }),
  variant('type-0x02', 'the idle keepalive is the decompiled type-0x02 message, not echoed, and only reliable sends reset its clock', { keepalive: { message: 'type-0x02', idleCounts: 'reliable-messages' } }),
  variant('timing-notes', 'the DECISIONS.md 20 timing notes: 1.0 s retransmit base, dropped after 9 tries, otherwise all session', { messageLifetime: 'session', retransmit: { baseMs: 1000, retryLimit: 9 } }),
];

/** The reading the stock preset adopts (transport/switches.ts CALIBRATED_READINGS). */
export const STOCK_READING = 'calibrated';

/** The previous stock reading, for the tie-break: the fewest changes from it. */
export const PREVIOUS_READING = 'previous-stock';

/** Leaf settings (switches, transport, traffic, periods) in which two readings differ. */
export function changesBetween(a: Reading, b: Reading): string[] {
  const flat = (r: Reading): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (prefix: string, value: unknown): void => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) for (const [k, v] of Object.entries(value)) walk(prefix ? `${prefix}.${k}` : k, v);
      else out[prefix] = JSON.stringify(value);
    };
    walk('', { ...r.switches, transport: r.transport, traffic: r.traffic, loopbackClientMs: r.loopbackClientMs, sessionClientMs: r.sessionClientMs });
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
