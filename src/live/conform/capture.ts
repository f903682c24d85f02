// `bcsim conform --pcap FILE`: every session's datagrams in one pcapng, as
// they were on the wire (ciphertext; the cipher round trip is exact,
// docs/sources.md 22), each one of ours commented with what it was for ("duplicate
// of ChecksumResponse r1", "hostile: …"). Wireshark and `bcsim analyze` read
// it as one conversation per session. IPv4 only (Ethernet/IPv4/UDP frames).
import { PcapngWriter, buildFrame } from '../../core/pcap/index.js';
import { encrypt } from '../../core/codec/index.js';
import { msToUs } from '../../core/engine/index.js';
import { VERSION } from '../../version.js';
import { endpointOf } from '../proxy/capture.js';
import type { ConformClient } from './client.js';

export interface CapturedSession {
  readonly caseId: string;
  readonly client: ConformClient;
}

/**
 * The pcapng bytes: packets in time order across sessions. `epochUs` is the
 * wall-clock time (µs since 1970) of `originMs` on the campaign's clock.
 */
export function conformPcap(
  sessions: readonly CapturedSession[],
  originMs: number,
  epochUs: number,
  server: { address: string; port: number },
): Uint8Array {
  const chunks: Uint8Array[] = [];
  // The writer hands out views of its reused buffer: each chunk is copied.
  const writer = new PcapngWriter((chunk) => chunks.push(Uint8Array.from(chunk)));
  writer.sectionHeader({
    application: `bcsim ${VERSION}`,
    comment: `bcsim conform against ${server.address}:${server.port}`,
  });
  writer.interfaceDescription({ name: 'bcsim-conform', description: 'datagrams of every conform session' });
  const serverEnd = endpointOf(server);
  const packets: Array<{ atUs: number; frame: Uint8Array; comment: string }> = [];
  let identification = 0;
  for (const { caseId, client } of sessions) {
    const [host, port] = client.local.split(':');
    const local = endpointOf({ address: host, port: Number(port) });
    if (local === null || serverEnd === null) continue;
    const at = (ms: number) => epochUs + msToUs(client.openedAtMs - originMs + ms);
    for (const d of client.departures) {
      const raw = d.note.startsWith('raw: ');
      packets.push({
        atUs: at(d.timeMs),
        frame: buildFrame(local, serverEnd, identification++ & 0xffff, raw ? d.bytes : encrypt(d.bytes)),
        comment: `${caseId} [${client.label}] ${d.note}`,
      });
    }
    for (const a of client.arrivals)
      packets.push({
        atUs: at(a.timeMs),
        frame: buildFrame(serverEnd, local, identification++ & 0xffff, encrypt(a.bytes)),
        comment: `${caseId} [${client.label}]`,
      });
  }
  packets.sort((x, y) => x.atUs - y.atUs);
  for (const p of packets) writer.packet(p.atUs, p.frame, p.comment);
  writer.flush();
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}
