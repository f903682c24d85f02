// A server that sends the client's keepalive back under the client's own seq
// about every second (a cached echo, docs/captures.md) repeats a keepalive: a
// new message each time, not a re-send of data. `bcsim peer client` counts
// those repeats apart from data re-sends in every line that counts either,
// and `stops-after-ack` still fails on a data message re-sent after our ACK.
// Live peers on a virtual network (test/support/live-net.ts), in exact times.
import { describe, expect, it } from 'vitest';
import { TYPE_DATA, TYPE_GAME, decodeDatagram, decrypt, encodeDatagram } from '../../src/core/codec/index.js';
import type { Located } from '../../src/core/codec/index.js';
import { DEFAULT_RULES, evaluateConformance, renderConformanceText } from '../../src/live/conformance/index.js';
import { renderLiveSummary } from '../../src/live/peer/live-report.js';
import { judgedUntilUs } from '../../src/live/peer/live-summary.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import { SERVER_ADDRESS, VirtualNet, netClient, netServer, netSummary, onWire } from '../support/live-net.js';
import type { NetPeerOptions } from '../support/live-net.js';

const scenario = loadScenario('live');
const STOCK_SERVER: NetPeerOptions = { scenario, switches: switchesFor(scenario, 'stock'), seed: 1, durationS: null };
const FIXED_CLIENT: NetPeerOptions = { scenario, switches: switchesFor(scenario, 'fixed'), seed: 1, durationS: 40 };
const CLIENT = '127.0.0.2:40002';

/** The first reliable message of `type` that `from` put on the wire, decrypted. */
function firstMessage(net: VirtualNet, from: string, type: number): Located {
  for (const c of net.carried) {
    if (c.from !== from) continue;
    const decoded = decodeDatagram(decrypt(c.bytes));
    if (!decoded.ok) continue;
    const found = decoded.datagram.messages.find((m) => m.type === type && 'reliable' in m && m.reliable);
    if (found !== undefined) return found;
  }
  throw new Error(`no reliable type 0x${type.toString(16)} from ${from}`);
}

/** `message` sent from the server's address to the client, as a datagram of its own, `times` times `everyMs` apart. */
function repeatFromServer(net: VirtualNet, message: Located, times: number, everyMs: number): void {
  const encoded = encodeDatagram({ peerId: 1, messages: [message] });
  if (!encoded.ok) throw new Error(encoded.error.reason);
  for (let i = 0; i < times; i++) {
    net.inject(SERVER_ADDRESS, CLIENT, onWire(encoded.bytes));
    net.advance(everyMs);
  }
}

function run(repeat: (net: VirtualNet) => void) {
  const net = new VirtualNet();
  netServer(net, STOCK_SERVER);
  const client = netClient(net, CLIENT, FIXED_CLIENT);
  net.advance(12_000);
  repeat(net);
  net.advance(45_000 - net.nowUs / 1000);
  net.close();
  const results = evaluateConformance(client.log.records, DEFAULT_RULES, { endUs: judgedUntilUs(client) });
  return {
    text: renderLiveSummary(netSummary(client, FIXED_CLIENT, CLIENT)),
    rules: renderConformanceText(results),
    stops: results.find((r) => r.rule === 'stops-after-ack'),
    interval: results.find((r) => r.rule === 'retransmit-interval'),
  };
}

describe('keepalive repeats against data re-sends', () => {
  it("a server repeating its echo of the client's keepalive under one seq: counted as keepalive repeats, not re-sends", () => {
    const { text, rules, stops, interval } = run((net) =>
      // The client's own keepalive, sent back 20 times a second apart under its seq, as a cached echo.
      repeatFromServer(net, firstMessage(net, CLIENT, TYPE_DATA), 20, 1000),
    );
    // The rule judged the server's data messages and passed; the keepalive repeats are named, not judged.
    expect(stops?.status).toBe('pass');
    expect(stops?.keepaliveRepeats).toBe(18); // the first two came within the grace after our ACK
    expect(rules).toMatch(
      /PASS stops-after-ack: .*\(checked \d+, violations 0; 18 keepalive repeats past the grace after our ACK, not judged: each keepalive is a new message\)/,
    );
    expect(interval?.status).toBe('not-exercised');
    expect(interval?.reason).toMatch(/re-sent none of its \d+ reliable messages \(19 keepalive repeats not judged\)/);
    // Our transport dropped the repeats as duplicates: the line says they were keepalives.
    expect(text).toMatch(/\(\d+ transmissions read, 20 duplicates dropped: 0 of data, 20 keepalive repeats\)/);
    // The analysis took them for echoes of our keepalive, apart from the reliable transmissions.
    expect(text).toMatch(
      /counterpart \(connection 1\): \d+ datagrams, \d+ reliable transmissions and 0 re-sends of them, 20 keepalive echoes \(20 under a seq already used\),/,
    );
  });

  it('a server re-sending a game message after our ACK still fails stops-after-ack, and the lines count it as data', () => {
    const { text, stops } = run((net) => repeatFromServer(net, firstMessage(net, SERVER_ADDRESS, TYPE_GAME), 4, 2000));
    expect(stops?.status).toBe('fail');
    expect(stops?.keepaliveRepeats).toBeUndefined();
    expect(stops?.evidence[0].detail).toMatch(/^The counterpart re-sent its seq \d+ \(high\) 4 times past the grace/);
    expect(text).toMatch(/4 duplicates dropped: 4 of data, 0 keepalive repeats\)/);
    expect(text).toMatch(/reliable transmissions and 4 re-sends of them, 0 keepalive echoes/);
  });
});
