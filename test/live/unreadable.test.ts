// Garbage is named as garbage: datagrams bcsim cannot read are counted by
// source address, the first few shown in hex, in `peer`'s summary; bounded
// however many addresses send them.
import { describe, expect, it } from 'vitest';
import { encrypt } from '../../src/core/codec/index.js';
import { renderLiveSummary } from '../../src/live/peer/live-report.js';
import { MAX_SOURCES, SHOWN_PER_SOURCE, UnreadableCounter, unreadableLine } from '../../src/live/unreadable.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import { SERVER_ADDRESS, VirtualNet, netClient, netServer, netSummary } from '../support/live-net.js';

const scenario = loadScenario('live');
const FIXED = { scenario, switches: switchesFor(scenario, 'fixed'), seed: 1, durationS: null };
/** Decrypts to a header and an unknown message type: unreadable. */
const GARBAGE = encrypt(Uint8Array.from([0x01, 0x01, 0x4d, 0x93, 0xe9]));

describe('UnreadableCounter', () => {
  it('counts every datagram, tracks 16 sources one by one and shows the first three of each', () => {
    const counter = new UnreadableCounter();
    for (let i = 0; i < 20; i++) for (let k = 0; k < 5; k++) counter.add(`127.0.0.${i}:1`, Uint8Array.of(i, k), 'why');
    const f = counter.figures();
    expect(f.total).toBe(100);
    expect(f.bySource).toHaveLength(MAX_SOURCES);
    expect(f.otherSources).toBe(20);
    expect(f.bySource[3]).toEqual({
      address: '127.0.0.3:1',
      count: 5,
      first: [0, 1, 2].map((k) => ({ hex: `030${k}`, bytes: 2, reason: 'why' })),
    });
    expect(f.bySource[0].first).toHaveLength(SHOWN_PER_SOURCE);
    expect(unreadableLine(f)).toMatch(
      /^100 \(5 from 127\.0\.0\.0:1, .* 20 from other addresses\); first: 0000 \(why\)$/,
    );
    expect(unreadableLine(new UnreadableCounter().figures())).toBe('none');
  });
});

describe('peer counts unreadable datagrams apart from what it read', () => {
  it('a client flooded with garbage from its server address names it in the summary, with the bytes', () => {
    const net = new VirtualNet();
    const server = netServer(net, FIXED);
    const client = netClient(net, '127.0.0.2:40002', FIXED);
    // The live scenario's join takes about 7 s (its checksum rounds); garbage comes in the middle of it.
    net.advance(3_000);
    for (let i = 0; i < 50; i++) net.inject(SERVER_ADDRESS, '127.0.0.2:40002', GARBAGE);
    net.advance(7_000);
    client.stop('signal');
    net.advance(1_500);
    net.close();
    const summary = netSummary(client, FIXED, '127.0.0.2:40002');
    const u = summary.wire.unreadable;
    expect(u.total).toBe(50);
    expect(u.bySource.map((s) => [s.address, s.count])).toEqual([[SERVER_ADDRESS, 50]]);
    expect(u.bySource[0].first[0]).toEqual({
      hex: '01014D93E9',
      bytes: 5,
      reason: 'offset 2: unknown message type 0x4D',
    });
    expect(renderLiveSummary(summary)).toContain(
      `unreadable datagrams: 50 (50 from ${SERVER_ADDRESS}); first: 01014D93E9 (offset 2: unknown message type 0x4D)`,
    );
    // The join went on: garbage is counted, not fatal.
    expect(client.connections[0].joinedAtUs).not.toBeNull();
    expect(server.unreadable.total).toBe(0);
  });
});
