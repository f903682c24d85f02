// The proxy's status line shows each end's ACK-outbox estimate under the
// behaviour its own wire shows so far, and "?" while that is unknown.
import { describe, expect, it } from 'vitest';
import { WireAnalyzer } from '../../src/analysis/capture/analyze.js';
import type { CaptureConnection } from '../../src/analysis/capture/bc-packets.js';
import { statusLine } from '../../src/live/proxy/status.js';
import type { ProxyRelay } from '../../src/live/proxy/relay.js';
import { ack, bc, reliable, unreliable } from '../support/pcap-build.js';

const S = 1_000_000;

function relayWith(analyzer: WireAnalyzer): ProxyRelay {
  const link = { counters: { delivered: 0, dropped: 0 } };
  const client = { links: { clientToServer: link, serverToClient: link }, outstanding: { count: () => 0 } };
  return { clients: [client], analyzer } as unknown as ProxyRelay;
}

describe('the status line', () => {
  it('per side: "?" while the behaviour is unknown, then the estimate and the behaviour', () => {
    const analyzer = new WireAnalyzer();
    const endpoint = (port: number) => ({ key: port, ip: 0, port, label: `127.0.0.1:${port}` });
    const connection: CaptureConnection = {
      index: 1,
      server: endpoint(22101),
      client: endpoint(22102),
      slot: 2,
      startSeen: true,
      firstUs: 0,
      lastUs: 0,
    };
    analyzer.add(connection, 'client', 0, 0, bc(0xff, [reliable(0, [0xff, 1], 0x03)]));
    expect(statusLine(relayWith(analyzer), 1)).toMatch(
      /\| C: .* outbox \? \(unknown\) \| S: .* outbox \? \(unknown\)$/,
    );
    // The server ACKs each of the client's messages once; the client keeps sending, so keys are passed over.
    for (let k = 1; k <= 10; k++) {
      analyzer.add(connection, 'client', k * S, 0, bc(0x02, [reliable(k), unreliable()]));
      analyzer.add(connection, 'server', k * S + 100_000, 0, bc(0x01, [ack(k), unreliable()]));
    }
    expect(statusLine(relayWith(analyzer), 11)).toMatch(/\| S: .* outbox 0 \(immediate\)$/);
  });
});
