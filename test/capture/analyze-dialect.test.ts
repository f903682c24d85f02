// `bcsim analyze` on a capture in the wire forms of docs/sources.md 30: every
// datagram is a BC datagram (none "undecodable"), measured in its stock form,
// and the deviations are counted per connection and direction.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WireAnalyzer, analyzeCapture } from '../../src/analysis/capture/index.js';
import type { CaptureConnection } from '../../src/analysis/capture/index.js';
import { cli } from '../support/cli.js';
import { DIALECT_SESSION, dialectBytes } from '../support/dialect-traffic.js';
import { pcap, udpPackets } from '../support/pcap-build.js';

function captureFile(plaintext: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'bcsim-dialect-analyze-'));
  const file = join(dir, 'dialect.pcap');
  const traffic = DIALECT_SESSION.map((p) => ({
    timeUs: p.t * 1e6,
    from: p.fromServer ? ('server' as const) : ('client' as const),
    bytes: dialectBytes(p),
  }));
  writeFileSync(file, pcap(udpPackets(traffic, { plaintext })));
  return file;
}

describe('analyze: deviations per connection and direction', () => {
  for (const plaintext of [false, true]) {
    it(`${plaintext ? 'plaintext' : 'encrypted'} capture: all 6 datagrams are BC; each end's deviations counted by code`, () => {
      const r = analyzeCapture(captureFile(plaintext));
      if (!r.ok) throw new Error(r.error.reason);
      const a = r.analysis;
      expect([a.packets.bc, a.packets.other]).toEqual([6, {}]);
      const c = a.connections[0];
      expect(c.clientToServer.deviations).toEqual({
        datagrams: 3,
        byCode: {
          'one-byte-length': 1,
          'connect-without-seq': 1,
          'ack-flag-bits': 1,
          'disconnect-type-06': 1,
          'two-byte-message': 1,
        },
      });
      expect(c.serverToClient.deviations).toEqual({ datagrams: 2, byCode: { 'two-byte-message': 2 } });
      // Measured in the stock form: the Connect is the client's reliable low message seq 0, the keepalives type 0x00.
      expect(c.clientToServer.reliable.low.messages).toBe(1);
      expect(c.serverToClient.keepalives.type00).toBe(2);
      expect(c.clientToServer.disconnects).toBe(1);
      expect(c.startSeen).toBe(true);
    });
  }

  it('the text report adds a deviations row only when an end sent one', async () => {
    const r = await cli(['analyze', captureFile(false)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /datagrams with deviations \(docs\/sources\.md 30\)\s*│?\s*3: two-byte-message 1, one-byte-length 1, disconnect-type-06 1, ack-flag-bits 1, connect-without-seq 1/,
    );
  });

  it("the analyzer counts ACK flag bits from the bytes, once per datagram with the reader's list", () => {
    const analyzer = new WireAnalyzer();
    const c: CaptureConnection = {
      index: 1,
      server: { key: 1, ip: 0, port: 0, label: 's' },
      client: { key: 2, ip: 0, port: 0, label: 'c' },
      slot: null,
      startSeen: true,
      firstUs: 0,
      lastUs: 0,
    };
    analyzer.add(c, 'client', 0, 10, Uint8Array.from([0x02, 0x02, 0x01, 0x00, 0x00, 0x80, 0x01, 0x01, 0x00, 0x82]));
    analyzer.add(c, 'client', 1000, 6, Uint8Array.from([0x02, 0x01, 0x01, 0x02, 0x00, 0x00]));
    const twoByte = [{ offset: 3, code: 'two-byte-message' as const, note: '' }];
    analyzer.add(
      c,
      'client',
      2000,
      4,
      Uint8Array.from([0x02, 0x02, 0x00, 0x03, 0x00, 0x01, 0x03, 0x00, 0x80]),
      undefined,
      [...twoByte, { offset: 8, code: 'ack-flag-bits', note: '' }],
    );
    const d = analyzer.finish(3000).connections[0].clientToServer.deviations;
    expect(d).toEqual({ datagrams: 2, byCode: { 'ack-flag-bits': 3, 'two-byte-message': 1 } });
  });
});
