// Datagram byte storage: datagrams are written into a shared slab and handed out
// as views, so a run does not allocate a backing store per datagram. Slab space
// is never reused; a full slab is dropped and collected once its views die.
import { DATAGRAM_HEADER_BYTES, MAX_DATAGRAM_BYTES } from '../../core/codec/index.js';

const SLAB_BYTES = 64 * 1024;

export class Slab {
  private buffer = new Uint8Array(SLAB_BYTES);
  private used = 0;

  /** The buffer the last reserve() made room in. */
  get current(): Uint8Array {
    return this.buffer;
  }

  /** Room for one datagram of up to `bytes` bytes: its offset in `current` (no tuple per datagram). */
  reserve(bytes: number): number {
    // One throw: two reasons built from one number were compiled as one conversion above both.
    if (!(bytes >= DATAGRAM_HEADER_BYTES && bytes <= MAX_DATAGRAM_BYTES))
      throw new Error(
        `slab: ${bytes} bytes ${bytes > MAX_DATAGRAM_BYTES ? 'exceed a datagram' : 'are less than a datagram header'}`,
      );
    if (this.used + bytes > SLAB_BYTES) {
      this.buffer = new Uint8Array(SLAB_BYTES);
      this.used = 0;
    }
    const offset = this.used;
    this.used += bytes;
    return offset;
  }
}
