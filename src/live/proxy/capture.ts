// The proxy's pcapng: what it forwarded and
// dropped. Capture point: the proxy. A forwarded datagram is one packet at
// the time it was sent, as sent (ciphertext), addressed end to end from the
// client's address to the server's or back (the proxy is transparent, so one
// client is one conversation); a dropped one is the datagram as it reached
// the proxy, commented `DROPPED (<cause>)`.
// Addresses are the real ones (IPv4 only: the frames are Ethernet/IPv4/UDP,
// pcap/frames.ts). Streamed into a hidden temporary (CaptureFile) and
// renamed into place with the summary at exit, so nothing is half-written.
import { CaptureFile } from '../../analysis/capture/index.js';
import { macFor, buildFrame, PcapngWriter } from '../../core/pcap/index.js';
import type { Endpoint } from '../../core/pcap/index.js';
import { VERSION } from '../../version.js';

export interface Address {
  readonly address: string;
  readonly port: number;
}

/** The capture's Endpoint for a real IPv4 address; null for IPv6 (no frame for it). */
export function endpointOf(a: Address): Endpoint | null {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a.address);
  if (m === null) return null;
  const ip = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  return { mac: macFor(ip), ip, port: a.port };
}

export class ProxyCapture {
  private readonly file: CaptureFile;
  private readonly writer: PcapngWriter;
  private identification = 0;
  packets = 0;

  /**
   * `epochUs`: wall-clock time (µs since 1970) of the proxy's time 0. The live
   * layer reads Date.now once, at start, for it: pcap timestamps are absolute,
   * and the monotonic clock (WallClock) gives the offsets.
   */
  constructor(
    target: string,
    private readonly epochUs: number,
    comment: string,
  ) {
    this.file = new CaptureFile(target);
    this.writer = new PcapngWriter(this.file.write);
    this.writer.sectionHeader({ application: `bcsim ${VERSION}`, comment });
    this.writer.interfaceDescription({ name: 'bcsim-proxy', description: 'datagrams the proxy forwarded or dropped' });
  }

  /** One packet at `timeUs` (proxy time) from `source` to `destination`. IPv6 packets are not recorded. */
  packet(timeUs: number, source: Address, destination: Address, payload: Uint8Array, comment = ''): void {
    const s = endpointOf(source);
    const d = endpointOf(destination);
    if (s === null || d === null) return;
    this.writer.packet(
      this.epochUs + Math.max(0, Math.round(timeUs)),
      buildFrame(s, d, this.identification++, payload),
      comment,
    );
    this.packets++;
  }

  /** Flushes what is buffered into the temporary; the file appears on commit. */
  flush(): CaptureFile {
    this.writer.flush();
    return this.file;
  }

  get captureFile(): CaptureFile {
    return this.file;
  }
}
