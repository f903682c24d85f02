// The canonical trace of an R-Type run: every datagram and TCP message put on the
// wire, as (time µs u64 LE, direction u8, client u8, length u16 LE, bytes). Its
// SHA-256 is the summary's traceHash: the same config and seed give the same hash.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';

/** Direction codes in the trace. */
export const RTYPE_DIRECTION = { udpClientToServer: 0, udpServerToClient: 1, tcpClientToServer: 2 } as const;
export type RtypeDirection = keyof typeof RTYPE_DIRECTION;

const RECORD_HEADER_BYTES = 12;
const CHUNK_BYTES = 1 << 16;

export class RtypeTraceHash {
  private readonly hash: Hash = createHash('sha256');
  private readonly chunk = new Uint8Array(CHUNK_BYTES);
  private readonly view = new DataView(this.chunk.buffer);
  private used = 0;
  private finished: string | null = null;
  /** Records hashed so far. */
  count = 0;

  record(timeUs: number, direction: RtypeDirection, client: number, bytes: Uint8Array): void {
    if (this.finished !== null) throw new Error('rtype trace hash: record after digest');
    if (!(Number.isInteger(client) && client >= 0 && client <= 0xff)) throw new Error(`rtype trace hash: client ${client} does not fit a byte`);
    const need = RECORD_HEADER_BYTES + bytes.length;
    if (need > CHUNK_BYTES) throw new Error(`rtype trace hash: a ${bytes.length}-byte record is too long`);
    if (this.used + need > CHUNK_BYTES) this.flush();
    const at = this.used;
    this.view.setUint32(at, timeUs % 0x1_0000_0000, true);
    this.view.setUint32(at + 4, Math.floor(timeUs / 0x1_0000_0000), true);
    this.chunk[at + 8] = RTYPE_DIRECTION[direction];
    this.chunk[at + 9] = client;
    this.view.setUint16(at + 10, bytes.length, true);
    this.chunk.set(bytes, at + RECORD_HEADER_BYTES);
    this.used += need;
    this.count++;
  }

  digest(): string {
    if (this.finished === null) {
      this.flush();
      this.finished = this.hash.digest('hex');
    }
    return this.finished;
  }

  private flush(): void {
    if (this.used > 0) this.hash.update(this.chunk.subarray(0, this.used));
    this.used = 0;
  }
}
