// What the live peer makes of a datagram before its transport reads it. The
// counterpart may be a reimplementation that sends the wire forms of
// docs/sources.md 30: they are read with the codec's dialect reader and handed to
// the transport in their stock form, and their deviations are kept for the
// summary. Datagrams a server cannot take from a new address, and addresses
// past --clients, are reported on stderr at once, one line each.
import {
  PEER_ID_UNASSIGNED,
  TYPE_CONNECT,
  TYPE_CONNECT_ACK,
  decodeDatagram,
  decodeDialect,
  toHex,
} from '../../core/codec/index.js';
import type { Deviation } from '../../core/codec/index.js';

export interface Intake {
  /** What the transport reads: the stock form, or the bytes as they came when they do not read at all. */
  readonly bytes: Uint8Array;
  readonly deviations: readonly Deviation[];
  /** Why the datagram does not read (offset and reason), or null. */
  readonly problem: string | null;
}

export function intake(plain: Uint8Array): Intake {
  const read = decodeDialect(plain);
  if (!read.ok) return { bytes: plain, deviations: [], problem: `offset ${read.error.offset}: ${read.error.reason}` };
  return { bytes: read.stock, deviations: read.deviations, problem: null };
}

/** Why a datagram from an address the server does not know cannot open a connection, or null when it can. */
export function cannotOpen(read: Intake): string | null {
  if (read.problem !== null) return `bcsim cannot read it (${read.problem})`;
  const peerId = read.bytes[0];
  // ServerHost opens a connection for a client without a slot, as the stock server does (docs/sources.md 5).
  if (peerId !== PEER_ID_UNASSIGNED)
    return `its peer id is 0x${peerId.toString(16).padStart(2, '0').toUpperCase()}, not 0xFF (a client without a slot, which a Connect carries)`;
  return null;
}

/**
 * A client's connect request: peer id 0xFF and a reliable message of type 0x02, or 0x03 as the stock
 * client sends it (docs/sources.md 3), with seq 0. Any other datagram of a client without a slot (an ACK,
 * a checksum answer) belongs to a connection already open.
 */
export function carriesConnect(read: Intake): boolean {
  if (cannotOpen(read) !== null) return false;
  const decoded = decodeDatagram(read.bytes);
  return (
    decoded.ok &&
    decoded.datagram.messages.some(
      (m) => (m.type === TYPE_CONNECT || m.type === TYPE_CONNECT_ACK) && m.reliable && m.seq === 0,
    )
  );
}

/** Lines of this kind printed at most; later ones are only counted in the summary. */
const MAX_INTAKE_WARNINGS = 16;
/** Bytes of a datagram shown in a warning. */
const SHOWN_BYTES = 64;

/** One stderr line per address, bounded: the counterpart sent what bcsim cannot take. */
export class IntakeWarnings {
  private readonly warned = new Set<string>();
  private silenced = false;

  constructor(private readonly warn: (line: string) => void) {}

  /** A new address's datagram opens no connection. */
  unopened(address: string, wire: Uint8Array, plain: Uint8Array, why: string): void {
    this.once(
      `open|${address}`,
      `${address} sent a datagram that opens no connection: ${why}; decrypted: ${shownHex(plain)}; as sent: ${shownHex(wire)}`,
    );
  }

  /** A new address past the clients the server serves. */
  refused(address: string, clients: number): void {
    this.once(
      `refuse|${address}`,
      `refusing ${address}: already serving ${clients} client${clients === 1 ? '' : 's'} (--clients ${clients}); its datagrams are counted, not read`,
    );
  }

  private once(key: string, line: string): void {
    if (this.warned.has(key) || this.silenced) return;
    if (this.warned.size >= MAX_INTAKE_WARNINGS) {
      this.silenced = true;
      this.warn(`more such datagrams are counted in the summary, not shown`);
      return;
    }
    this.warned.add(key);
    this.warn(line);
  }
}

function shownHex(bytes: Uint8Array): string {
  return bytes.length <= SHOWN_BYTES
    ? toHex(bytes)
    : `${toHex(bytes.subarray(0, SHOWN_BYTES))} … (${bytes.length} bytes)`;
}
