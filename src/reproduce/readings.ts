// The named readings of the stock model that `reproduce ack-outbox` ranks
// (issue 10, item 3). A reading is a combination of the open-reading switches
// (transport/switches.ts) and, for the model before issue 10, parameters.
import { READINGS_BEFORE_ISSUE_10, STOCK_RETRANSMIT } from '../transport/index.js';
import type { KeepalivePolicy, SwitchPatch, TransportSwitches } from '../transport/index.js';

export interface Reading {
  readonly name: string;
  readonly description: string;
  /** Every open-reading switch, set explicitly: a row does not depend on what the stock preset adopts. */
  readonly switches: SwitchPatch;
  /** Transport parameters every experiment of this reading runs with (scenario `transport` block). */
  readonly transport?: Readonly<Record<string, unknown>>;
}

const LIFETIME = { messageLifetime: 'peer-timeout' } as const;
const OUTSIDE = { path: 'outside-queues' } as const;
const UNRELIABLE = { reliable: false } as const;
const RELIABLE_IDLE = { idleCounts: 'reliable-messages' } as const;

type OpenReadings = Pick<TransportSwitches, keyof typeof READINGS_BEFORE_ISSUE_10 | 'retransmit'>;
const BASE: OpenReadings = { ...READINGS_BEFORE_ISSUE_10, retransmit: STOCK_RETRANSMIT };

/** A row: the readings before issue 10 with `patch` applied (keepalive and retransmit merged field by field). */
function row(name: string, description: string, patch: SwitchPatch & { keepalive?: Partial<KeepalivePolicy> }, transport?: Reading['transport']): Reading {
  const switches: SwitchPatch = {
    ...BASE,
    ...patch,
    keepalive: { ...BASE.keepalive, ...patch.keepalive },
    retransmit: { ...BASE.retransmit, ...patch.retransmit },
  };
  return transport ? { name, description, switches, transport } : { name, description, switches };
}

export const READINGS: readonly Reading[] = [
  row(
    'before-issue-10',
    'bcsim before issue 10: datagrams read on arrival, 95 ms updates everywhere, the remote removed right after its Disconnect',
    { receiveTiming: 'on-arrival' },
    { updatePeriodMs: { server: 95, client: 95 }, disconnectedPeerLingerMs: 0 },
  ),
  row('queued-reliable', 'keepalive = the captured reliable 0x00 message through the first-send queue (opens the gate); messages live all session', {}),
  row('outside-queues', 'keepalive written after pass 2, never opening the gate', { keepalive: OUTSIDE }),
  row('unreliable', 'keepalive unreliable, still queued', { keepalive: UNRELIABLE }),
  row('unreliable-outside', 'keepalive unreliable and outside the queues', { keepalive: { ...UNRELIABLE, ...OUTSIDE } }),
  row('lifetime', 'unACKed messages dropped once older than the peer timeout (45 s)', LIFETIME),
  row('lifetime+outside', 'lifetime, keepalive outside the queues', { ...LIFETIME, keepalive: OUTSIDE }),
  row('lifetime+unreliable', 'lifetime, keepalive unreliable', { ...LIFETIME, keepalive: UNRELIABLE }),
  row('lifetime+unreliable-outside', 'lifetime, keepalive unreliable and outside the queues', { ...LIFETIME, keepalive: { ...UNRELIABLE, ...OUTSIDE } }),
  row('lifetime+reliable-idle', 'lifetime; only reliable sends reset the 5 s keepalive clock (StateUpdates do not)', { ...LIFETIME, keepalive: RELIABLE_IDLE }),
  row('lifetime+reliable-idle+unreliable-outside', 'lifetime; reliable sends reset the keepalive clock; keepalive unreliable, outside the queues', {
    ...LIFETIME,
    keepalive: { ...RELIABLE_IDLE, ...UNRELIABLE, ...OUTSIDE },
  }),
  row('type-0x02+lifetime+reliable-idle', 'the decompiled type-0x02 keepalive (reliable, queued, not echoed); lifetime; reliable sends reset its clock', {
    ...LIFETIME,
    keepalive: { ...RELIABLE_IDLE, message: 'type-0x02' },
  }),
  row('timing-notes', 'DECISIONS.md 20 timing notes: 1.0 s retransmit base, dropped after 9 tries; messages otherwise live all session', {
    retransmit: { baseMs: 1000, retryLimit: 9 },
  }),
];

/** The reading the stock preset adopts (transport/switches.ts CALIBRATED_READINGS). */
export const STOCK_READING = 'lifetime+unreliable-outside';

export function readingNamed(name: string): Reading | undefined {
  return READINGS.find((r) => r.name === name);
}
