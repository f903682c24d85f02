// The fragment-ACK bug on the built-in fragment-ack-bug scenario (join + idle lobby, 120 s).
import { describe, expect, it } from 'vitest';
import { TYPE_ACK, TYPE_GAME } from '../../src/core/codec/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { recordSent } from '../support/record.js';
import type { Sent } from '../support/record.js';

const scenario = loadScenario('fragment-ack-bug');

/** Client datagrams carrying fragments of seq 2: [time ms, fragIndex, flags_len high byte]. */
function fragmentSends(sent: Sent[]): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (const d of sent) {
    if (d.from !== 'client') continue;
    for (const m of d.messages) {
      if (m.type === TYPE_GAME && m.fragment && m.seq === 2)
        out.push([d.timeUs / 1000, m.fragIndex as number, d.bytes[m.offset + 2]]);
    }
  }
  return out;
}

describe('fragment-ack-bug, stock, lossless', () => {
  const { observer, sent } = recordSent();
  const { summary } = runScenario(scenario, { preset: 'stock', observer });
  const sends = fragmentSends(sent);

  it('the round-2 response goes out as 3 fragments of high seq 2 with flags 0xA1, 0xA1, 0xA0', () => {
    expect(sends.slice(0, 3).map(([, i, hi]) => [i, hi])).toEqual([
      [0, 0xa1],
      [1, 0xa1],
      [2, 0xa0],
    ]);
    const first = sent.find(
      (d) => d.from === 'client' && d.messages.some((m) => m.type === TYPE_GAME && m.fragIndex === 0),
    );
    const frag0 = first?.messages.find((m) => m.type === TYPE_GAME && m.fragIndex === 0);
    expect(frag0?.size).toBe(412); // docs/sources.md 6: fragment 0 is 0x019C bytes
    expect(frag0 && frag0.type === TYPE_GAME ? frag0.fragCount : null).toBe(3);
  });

  it('re-sends all 3 together about every 2 s until the message is 45 s old (messageLifetime peer-timeout)', () => {
    // 22 rounds: first sent at 0.827 s, re-sent every 2.01 s while its age is at most 45 s.
    expect(summary.peers.client.fragmentRetransmits).toBe(66);
    expect(summary.peers.client.gaveUp).toBe(3); // one per fragment entry
    // Group sends into rounds: a new round starts more than 1 s after the previous send.
    const rounds: number[][] = [];
    let last = -Infinity;
    for (const [t, index] of sends) {
      if (t - last > 1000) rounds.push([]);
      rounds[rounds.length - 1].push(index);
      last = t;
    }
    for (const round of rounds) expect([...round].sort()).toEqual([0, 1, 2]);
    const starts = sends.filter(([, i]) => i === 0).map(([t]) => t);
    const periods = starts.slice(1).map((t, i) => t - starts[i]);
    for (const p of periods) expect(Math.abs(p - 2000)).toBeLessThan(500);
    expect(starts[starts.length - 1]).toBeGreaterThan(45_827 - 2_500); // still going at the end of its lifetime
    expect(starts[starts.length - 1]).toBeLessThan(45_827);
  });

  it('with messageLifetime session (the bug documents) the re-sends go on until the end of the run', () => {
    const { summary: whole, session } = runScenario(scenario, {
      preset: 'stock',
      switches: { messageLifetime: 'session' },
    });
    expect(whole.peers.client.fragmentRetransmits).toBe(177);
    expect(session.peers.client.retransmitQueue.size).toBe(3);
  });

  it('never re-sends a non-fragmented reliable message', () => {
    expect(summary.peers.client.retransmits).toBe(summary.peers.client.fragmentRetransmits);
    expect(summary.peers.server.retransmits).toBe(0);
  });

  it('the server sends a correct 5-byte ACK for each fragment', () => {
    const acks = new Set<string>();
    for (const d of sent) {
      if (d.from !== 'server') continue;
      for (const m of d.messages) {
        if (m.type === TYPE_ACK && m.seq === 2 && (m.flags & 1) === 1) {
          const raw = Array.from(d.bytes.subarray(m.offset, m.offset + m.size));
          expect(raw).toEqual([0x01, 0x02, 0x00, 0x01, m.fragIndex]);
          acks.add(String(m.fragIndex));
        }
      }
    }
    expect([...acks].sort()).toEqual(['0', '1', '2']);
  });

  it('delivers everything once and in order despite the endless retransmits', () => {
    expect(summary.delivery.reliableDelivered).toBe(summary.delivery.reliableSent);
    expect(summary.delivery.duplicateDeliveries).toBe(0);
    // Every re-sent fragment reaches the server on this lossless link and is dropped there as a duplicate.
    expect(summary.peers.server.duplicatesReceived).toBe(summary.peers.client.fragmentRetransmits);
  });
});

describe('fragment-ack-bug, fixed, lossless', () => {
  const { summary } = runScenario(scenario, { preset: 'fixed' });
  it('has no retransmits of any kind', () => {
    expect(summary.peers.client.fragmentRetransmits).toBe(0);
    expect(summary.peers.client.retransmits).toBe(0);
    expect(summary.peers.server.retransmits).toBe(0);
    expect(summary.delivery.reliableDelivered).toBe(summary.delivery.reliableSent);
  });
});
