// How a run may end its connection before the tail: an outage longer than the peer timeout, or a
// give-up policy (retry limit, message age) cut off by an outage. Also the retransmit policy,
// which times the retries those endings count, and the peer timeout.
import { secondsToMs } from '../../core/engine/index.js';
import type { Draft } from './draft.js';
import type { Rng } from './rng.js';
import { TICK_MS } from './timing.js';

export type Terminal = 'none' | 'long-outage' | 'give-up-retry' | 'give-up-age';

export function drawTerminal(r: Rng, high: boolean): Terminal {
  return high
    ? 'none'
    : r.weighted([
        ['none', 70],
        ['long-outage', 12],
        ['give-up-retry', 10],
        ['give-up-age', 8],
      ] as const);
}

export function givesUp(terminal: Terminal): boolean {
  return terminal === 'give-up-retry' || terminal === 'give-up-age';
}

export interface RetransmitPolicy {
  /** The longest interval between two retransmits of one message. */
  readonly maxIntervalMs: number;
  /** The longest time between two retransmits as the receiver sees them (interval plus an update each side). */
  readonly retryGapMs: number;
  readonly retryLimit?: number;
  readonly maxMessageAgeMs?: number;
}

/** Retransmit policy: fixed 2 s unless varied; give-up runs keep it for clean timing. */
export function drawRetransmitPolicy(
  d: Draft,
  terminal: Terminal,
  high: boolean,
  aliasingProbe: boolean,
): RetransmitPolicy {
  const { r, classes, transport } = d;
  let maxIntervalMs = 2_000;
  const retransmit: Record<string, unknown> = {};
  if (terminal === 'none' && !high && r.chance(0.15)) {
    const backoff = r.pick(['linear', 'exponential'] as const);
    const baseMs = r.int(300, 2_000);
    const capMs = r.int(Math.max(baseMs, 2_000), 8_000);
    Object.assign(retransmit, { backoff, baseMs, capMs });
    if (backoff === 'linear') retransmit.stepMs = r.int(100, 1_000);
    maxIntervalMs = capMs;
    classes.add(`backoff ${backoff}`);
  }
  if (aliasingProbe) {
    // Retransmits every 2 s would fill every datagram of every update long before half the seq
    // space is outstanding (64 datagrams x ~18 messages x 22 updates ~ 25,000): the sender
    // throttles itself. Backing off to 8-10 s leaves room for new messages during the outage.
    Object.assign(retransmit, { backoff: 'exponential', baseMs: 2_000, capMs: secondsToMs(r.int(8, 10)) });
    maxIntervalMs = retransmit.capMs as number;
    transport.datagramsPerUpdate = 64;
    classes.add('backoff exponential');
  }
  let retryLimit: number | undefined;
  if (terminal === 'give-up-retry') {
    retransmit.retryLimit = retryLimit = r.int(1, 4);
    classes.add('give-up: retryLimit');
  }
  let maxMessageAgeMs: number | undefined;
  if (terminal === 'give-up-age') {
    transport.maxMessageAgeMs = maxMessageAgeMs = secondsToMs(r.int(3, 8));
    classes.add('give-up: maxMessageAgeMs');
  }
  if (Object.keys(retransmit).length > 0) d.mode.retransmit = retransmit;
  return { maxIntervalMs, retryGapMs: maxIntervalMs + 2 * TICK_MS, retryLimit, maxMessageAgeMs };
}

/** A give-up limit loose enough that a little random loss will not exhaust it before the outage. */
export function isPatient(terminal: Terminal, policy: RetransmitPolicy): boolean {
  return (
    (terminal === 'give-up-retry' && (policy.retryLimit as number) >= 3) ||
    (terminal === 'give-up-age' && (policy.maxMessageAgeMs as number) >= 7_000)
  );
}

/**
 * Peer timeout: lowered to keep long-outage runs short; not below 15 s on a lossy link, where
 * the join's sparse retransmits, 2 s apart, could otherwise all be lost for a whole timeout.
 */
export function drawPeerTimeout(d: Draft, terminal: Terminal, lossy: boolean, aliasingProbe: boolean): number {
  const { r } = d;
  let timeoutMs = 45_000;
  const minTimeoutS = lossy ? 15 : 8;
  if (terminal === 'long-outage') timeoutMs = secondsToMs(r.int(minTimeoutS, minTimeoutS + 7));
  else if (terminal === 'none' && !aliasingProbe && r.chance(0.2))
    timeoutMs = secondsToMs(r.int(Math.max(12, minTimeoutS), 25));
  if (timeoutMs !== 45_000) {
    d.transport.peerTimeoutMs = timeoutMs;
    d.classes.add('peerTimeoutMs lowered');
  }
  return timeoutMs;
}

/** The senders whose messages (or whose ACKs) the outage cuts: both peers send combat traffic. */
export function expectGiveUp(d: Draft): void {
  d.checks.push({ fault: 'giveUp', peer: 'client' }, { fault: 'giveUp', peer: 'server' });
}
