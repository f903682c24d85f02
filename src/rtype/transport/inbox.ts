// The server's network side: what arrives on the UDP socket and the TCP channels,
// on arrival (the network threads, not the game loop). A zero-length datagram
// registers its sender; a confirmation clears pending entries (rtype-ack-system.md §4).
import type { ServerCounters } from './counters.js';
import type { PendingEntry } from './pending.js';
import type { RtypeSwitches } from './switches.js';
import type { UserRegistry } from './users.js';
import { decodeDatagram, decodeHeader, decodeTcpAck } from './wire.js';
import type { RtypeHeader } from './wire.js';

const ZERO_HEADER: RtypeHeader = { id: 0, ack: 0, packetNbr: 0, totalPacketNbr: 0, dataSize: 0 };

export class ServerInbox {
  /** The receive buffer's header: what a zero-length datagram leaves in it (docs/sources.md 24). */
  private staleHeader: RtypeHeader = ZERO_HEADER;

  constructor(
    private readonly switches: RtypeSwitches,
    private readonly registry: UserRegistry,
    private readonly counters: ServerCounters,
    /** Entries a confirmation removed (the server keeps its dangling count). */
    private readonly removed: (entries: readonly PendingEntry[]) => void,
    private readonly registered?: (client: number) => void,
  ) {}

  udp(client: number, bytes: Uint8Array): void {
    const c = this.counters;
    if (bytes.length === 0) {
      this.register(client);
      // The header was never filled in: it still holds the previous datagram's.
      const stale = this.switches.registrationReadsStaleHeader ? this.staleHeader : ZERO_HEADER;
      if (stale.ack !== 0) {
        c.staleHeaderReads++;
        if (this.switches.confirmViaNextUdp) this.confirm(client, stale.ack, 'registration');
      }
      return;
    }
    const head = decodeHeader(bytes);
    if (!head.ok) {
      c.malformed++;
      return;
    }
    this.staleHeader = head.header;
    if (!decodeDatagram(bytes).ok) {
      c.malformed++;
      return;
    }
    if (!this.registry.has(client)) {
      c.fromUnregistered++;
      return;
    }
    if (this.switches.confirmViaNextUdp && head.header.ack !== 0) this.confirm(client, head.header.ack, 'udp');
  }

  tcp(client: number, bytes: Uint8Array): void {
    const decoded = decodeTcpAck(bytes);
    if (!decoded.ok) {
      this.counters.malformed++;
      return;
    }
    this.confirm(client, decoded.ackId, 'tcp');
  }

  private register(client: number): void {
    if (!this.registry.register(client)) {
      this.counters.repeatedRegistrations++;
      return;
    }
    this.counters.registrations++;
    this.registered?.(client);
  }

  private confirm(client: number, ackId: number, via: 'tcp' | 'udp' | 'registration'): void {
    const c = this.counters;
    c.confirmations[via]++;
    const { own, others } = this.registry.clear(client, ackId, this.switches.clearWithoutBreak);
    this.removed(own);
    this.removed(others);
    if (own.length > 0) c.matched++;
    c.clearedForOthers += others.length;
    if (own.length + others.length === 0) c.unattributed[via]++;
  }
}
