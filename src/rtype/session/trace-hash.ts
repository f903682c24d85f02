// The canonical trace of an R-Type run: every datagram and TCP message put on the
// wire, hashed as a BC run's trace is (session's TraceHasher: time µs u64 LE, a
// direction byte, length u16 LE, bytes); here the direction byte carries the
// direction and the client. Its SHA-256 is the summary's traceHash: the same
// config and seed give the same hash.
import { TraceHasher } from '../../model/session/index.js';

/** Direction codes in the trace. */
export const RTYPE_DIRECTION = { udpClientToServer: 0, udpServerToClient: 1, tcpClientToServer: 2 } as const;
export type RtypeDirection = keyof typeof RTYPE_DIRECTION;

/** Clients per direction code: the direction byte is direction × 32 + client. */
const CLIENTS_PER_DIRECTION = 32;
/** Well inside the hasher's 64 KiB chunk. */
const MAX_RECORD_BYTES = 60_000;

export class RtypeTraceHash {
  private readonly hasher = new TraceHasher();

  /** Records hashed so far. */
  get count(): number {
    return this.hasher.datagramCount;
  }

  record(timeUs: number, direction: RtypeDirection, client: number, bytes: Uint8Array): void {
    if (!(Number.isInteger(client) && client >= 0 && client < CLIENTS_PER_DIRECTION))
      throw new Error(`rtype trace hash: client ${client} is not in 0..${CLIENTS_PER_DIRECTION - 1}`);
    if (bytes.length > MAX_RECORD_BYTES) throw new Error(`rtype trace hash: a ${bytes.length}-byte record is too long`);
    this.hasher.record(timeUs, RTYPE_DIRECTION[direction] * CLIENTS_PER_DIRECTION + client, bytes);
  }

  digest(): string {
    return this.hasher.digest();
  }
}
