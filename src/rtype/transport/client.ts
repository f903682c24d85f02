// An R-Type client's side of the ACK scheme: register with a zero-length datagram,
// send ordinary position datagrams, and confirm every critical packet it receives,
// over TCP (rtype-ack-system.md §3) or, under confirmViaNextUdp, in the ack field of
// its next ordinary datagram, keeping only the last non-zero id (docs/sources.md 24).
import type { RtypeSwitches } from './switches.js';
import { decodeDatagram, encodePacket, encodeRegistration, encodeTcpAck } from './wire.js';

export interface RtypeClientHooks {
  sendUdp(bytes: Uint8Array): void;
  sendTcp(bytes: Uint8Array): void;
  /** A death notification arrived (every copy, duplicates included). */
  deathArrived(entityId: number, ackOnWire: number): void;
}

export interface ClientCounters {
  received: number;
  malformed: number;
  tcpConfirmations: number;
  ordinarySent: number;
  registrationsSent: number;
}

export class RtypeClient {
  /** The last non-zero ack id seen: what the next ordinary datagram carries (confirmViaNextUdp). */
  lastAckId = 0;
  /** Set by the first datagram from the server; registration retries stop then. */
  heardFromServer = false;
  readonly counters: ClientCounters = {
    received: 0,
    malformed: 0,
    tcpConfirmations: 0,
    ordinarySent: 0,
    registrationsSent: 0,
  };

  constructor(
    /** 1-based client number; also its player's entity id and its header id. */
    readonly client: number,
    private readonly switches: RtypeSwitches,
    private readonly hooks: RtypeClientHooks,
  ) {
    if (!(Number.isInteger(client) && client >= 1))
      throw new Error(`rtype client: number ${client} is not an integer >= 1`);
  }

  register(): void {
    this.counters.registrationsSent++;
    this.hooks.sendUdp(encodeRegistration());
  }

  /** The player's position, the client's ordinary traffic. */
  sendOrdinary(x: number, y: number): void {
    const ack = this.switches.confirmViaNextUdp ? this.lastAckId : 0;
    this.counters.ordinarySent++;
    this.hooks.sendUdp(encodePacket({ id: this.client, ack }, { kind: 'position', entityId: this.client, x, y }));
  }

  receiveUdp(bytes: Uint8Array): void {
    const decoded = decodeDatagram(bytes);
    if (!decoded.ok || decoded.datagram.kind !== 'packet') {
      this.counters.malformed++;
      return;
    }
    this.heardFromServer = true;
    this.counters.received++;
    const { header, message } = decoded.datagram;
    if (message.kind === 'death') this.hooks.deathArrived(message.entityId, header.ack);
    if (header.ack === 0) return;
    if (this.switches.confirmViaNextUdp) {
      this.lastAckId = header.ack;
    } else {
      this.counters.tcpConfirmations++;
      this.hooks.sendTcp(encodeTcpAck(header.ack));
    }
  }
}
