// Which slot the server has given each client, learnt from what the trace sees.
// The observer hooks carry no session, and a trace streams while the run goes,
// so the lookup follows ServerHost.arrive: the server accepts a connection when
// a datagram from a client without a slot, carrying the unassigned peer id,
// reaches it, and gives it the next slot (2, 3, … in accept order). The link
// reports an arrival just before it hands the datagram over, so the slot is
// known from that instant on. traceScenario checks the result against the
// session after the run, so a change to the server's rule cannot go unnoticed.
import { PEER_ID_FIRST_CLIENT, PEER_ID_UNASSIGNED } from '../codec/index.js';
import type { Role } from '../transport/roles.js';
import { MAX_SLOT } from '../transport/server-host.js';

export class SlotTracker {
  private readonly slots = new Map<number, number>();
  private nextSlot = PEER_ID_FIRST_CLIENT;

  /** A datagram on client `client`'s connection reached `to`. */
  arrived(to: Role, bytes: Uint8Array, client: number): void {
    if (to !== 'server' || this.slots.has(client)) return;
    if (bytes.length === 0 || bytes[0] !== PEER_ID_UNASSIGNED || this.nextSlot > MAX_SLOT) return;
    this.slots.set(client, this.nextSlot++);
  }

  /** Client `client`'s slot, or null before the server accepted it. */
  slotOf(client: number): number | null {
    return this.slots.get(client) ?? null;
  }

  /** The client that got `slot`, or null if none has (yet). */
  clientOf(slot: number): number | null {
    for (const [client, s] of this.slots) if (s === slot) return client;
    return null;
  }
}
