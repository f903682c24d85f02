// A sender whose reliable seq starts again before the u16 wrap (docs/sources.md 1):
// a counter of 8 bits goes 255 -> 0. The analyzer counts the messages after it
// as new messages under old numbers, names the restart, and does not take them
// for re-sends; a re-send of a recent message is still a re-send.
import { describe, expect, it } from 'vitest';
import { WireAnalyzer } from '../../src/analysis/capture/analyze.js';
import type { CaptureConnection } from '../../src/analysis/capture/bc-packets.js';
import { bc, reliable } from '../support/pcap-build.js';

const S = 1_000_000;
const connection: CaptureConnection = {
  index: 1,
  server: { key: 22101, ip: 0, port: 22101, label: '127.0.0.1:22101' },
  client: { key: 22102, ip: 0, port: 22102, label: '127.0.0.1:22102' },
  slot: 2,
  startSeen: true,
  firstUs: 0,
  lastUs: 0,
};

/** The server sends `count` reliable messages, one every `gapUs`, its seq counting modulo `space`. */
function serverSends(count: number, space: number, gapUs: number, resendLast = false) {
  const analyzer = new WireAnalyzer();
  analyzer.add(connection, 'client', 0, 0, bc(0xff, [reliable(0, [0xff, 1], 0x03)]));
  let t = 0;
  for (let n = 0; n < count; n++) {
    t = (n + 1) * gapUs;
    // Each message's bytes differ: a new message, not the same one again.
    analyzer.add(connection, 'server', t, 0, bc(0x01, [reliable(n % space, [0x20, n & 0xff, n >> 8])]));
  }
  if (resendLast) {
    const n = count - 1;
    analyzer.add(connection, 'server', t + 2 * S, 0, bc(0x01, [reliable(n % space, [0x20, n & 0xff, n >> 8])]));
  }
  return analyzer.finish().connections[0].serverToClient;
}

describe('analyze: a reliable seq that starts again before the u16 wrap', () => {
  it('an 8-bit counter (255 -> 0) is named, and its messages after it are new messages, not re-sends', () => {
    const d = serverSends(300, 256, S, true);
    expect(d.seqRestarts).toEqual({ count: 1, first: { atS: 257, category: 'high', fromSeq: 255, toSeq: 0 } });
    expect(d.reliable.high).toEqual({ messages: 300, transmissions: 301, retransmissions: 1 });
  });

  it('a re-send of 255 after the count restarted at 0 is a re-send, not a wrap and not another restart', () => {
    const analyzer = new WireAnalyzer();
    analyzer.add(connection, 'client', 0, 0, bc(0xff, [reliable(0, [0xff, 1], 0x03)]));
    const send = (t: number, seq: number, n: number) =>
      analyzer.add(connection, 'server', t, 0, bc(0x01, [reliable(seq, [0x20, n & 0xff, n >> 8])]));
    for (let n = 0; n < 256; n++) send((n + 1) * S, n, n);
    send(257 * S, 0, 256);
    send(258 * S, 255, 255); // the old 255 again, 3 s after it was first sent
    send(259 * S, 1, 257);
    const d = analyzer.finish().connections[0].serverToClient;
    expect(d.seqRestarts.count).toBe(1);
    expect(d.reliable.high).toEqual({ messages: 258, transmissions: 259, retransmissions: 1 });
  });

  it('a stock u16 counter, and a fast 8-bit one whose old numbers are recent, are not restarts', () => {
    expect(serverSends(300, 65_536, S).seqRestarts).toEqual({ count: 0, first: null });
    // 256 numbers in 25.6 s: seq 0 comes back within the 60 s a re-send may take, so it reads as one.
    const fast = serverSends(300, 256, 100_000);
    expect(fast.seqRestarts.count).toBe(0);
    expect(fast.reliable.high.retransmissions).toBe(44);
  });
});
