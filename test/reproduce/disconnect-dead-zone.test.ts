// The stale ACKs of the client's Disconnect (docs/sources.md 21, 28: the captured one carries 2):
// which ACK-outbox entries sit in the dead zone at that moment, after the measured flow (a lull,
// then the server's last two messages) and after a minute of combat with no lull, and why.
import { describe, expect, it } from 'vitest';
import { TYPE_ACK, ackFlagsLowType } from '../../src/core/codec/index.js';
import { usToSeconds } from '../../src/core/engine/index.js';
import { deadZoneAtDisconnect } from '../../src/analysis/reproduce/disconnect-dead-zone.js';
import { COMBAT_DISCONNECT_FLOW } from '../../src/analysis/reproduce/evidence-combat-disconnect.js';
import { MEASURED_FLOW } from '../../src/analysis/reproduce/evidence-flow.js';
import { wireRecorder } from '../../src/analysis/reproduce/wire-facts.js';
import type { Wire } from '../../src/analysis/reproduce/wire-facts.js';
import { parseScenario } from '../../src/model/scenario/index.js';
import { fanOut, runScenario } from '../../src/model/session/index.js';

/** The ACK resend timer at the loopback client's 10 ms updates: the first update after 0.667 s. */
const RESEND_S = 0.67;

/** Runs a flow on the stock preset: the wire, and the client's queue gauges once a simulated second. */
function run(flow: object, seed = 1) {
  const wire = wireRecorder();
  const gauges = new Map<number, { deadZone: number; outbox: number; retransmitQueue: number }>();
  runScenario(parseScenario(JSON.stringify(flow), 'test', []), {
    preset: 'stock',
    seed,
    observer: fanOut(wire.observer, {
      sample(timeUs, peers) {
        const g = peers.client.gauges();
        gauges.set(Math.round(usToSeconds(timeUs)), {
          deadZone: g.ackOutboxDeadZone,
          outbox: g.ackOutbox,
          retransmitQueue: g.retransmitQueue,
        });
      },
    }),
  });
  const dz = deadZoneAtDisconnect(wire.sent);
  if (dz === null) throw new Error('no Disconnect');
  return { dz, sent: wire.sent, gauges };
}

/** The client's sends of each ACK before `untilS`, by key, in time order. */
function ackSends(sent: readonly Wire[], untilS: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const d of sent) {
    if (d.from !== 'client' || d.t >= untilS) continue;
    for (const m of d.messages) {
      if (m.type !== TYPE_ACK) continue;
      const key = `${ackFlagsLowType(m.flags) ? 'L' : 'H'}${m.seq}`;
      out.set(key, [...(out.get(key) ?? []), d.t]);
    }
  }
  return out;
}

describe('the dead zone the Disconnect carries', () => {
  const measured = run(MEASURED_FLOW);
  const combat = run(COMBAT_DISCONNECT_FLOW);

  it('after the measured flow: the ACKs of the server’s last two messages, 3 pass-1 sends each, nothing older', () => {
    const { dz, gauges } = measured;
    expect(dz.entries.map((e) => [e.key, e.sends])).toEqual([
      ['H160', 3],
      ['H161', 3],
    ]);
    for (const e of dz.entries) expect(e.ageS).toBeCloseTo(3.39, 2);
    // Their third send was the client's last datagram: pass 1 then had nothing left below 3 sends.
    expect(dz.lastDatagramS).toBe(dz.entries[0].lastSendS);
    expect(dz.disconnectS - (dz.lastDatagramS as number)).toBeCloseTo(2.05, 2);
    // The lull's StateUpdates opened the gate until every combat entry had its ninth send.
    expect(gauges.get(71)).toMatchObject({ outbox: 0, deadZone: 0 });
    expect(gauges.get(Math.floor(dz.disconnectS))).toMatchObject({ outbox: 2, deadZone: 2 });
  });

  it('after a minute of combat: the ACKs of the server’s messages of its last ~4 s, stranded at 3 to 8 sends', () => {
    const { dz, gauges } = combat;
    expect(dz.disconnectS).toBeCloseTo(69.497, 3);
    expect(dz.entries.map((e) => [e.key, e.sends])).toEqual([
      ['H150', 8],
      ['H151', 7],
      ['H152', 6],
      ['H153', 5],
      ['H154', 5],
      ['H155', 4],
      ['H156', 4],
      ['H157', 3],
      ['H158', 3],
      ['H159', 3],
    ]);
    expect(dz.entries.map((e) => e.ageS.toFixed(2))).toEqual([
      '7.74',
      '7.37',
      '6.67',
      '5.84',
      '5.51',
      '5.14',
      '4.84',
      '4.58',
      '4.16',
      '4.16',
    ]);
    // The Disconnect carries the whole dead zone: the gauge counts the same 10 entries, and nothing else.
    expect(gauges.get(69)).toMatchObject({ outbox: 10, deadZone: 10, retransmitQueue: 0 });
  });

  it('the gate kept them: every one was due, and the client wrote nothing for 2.82 s before the Disconnect', () => {
    const { dz, sent } = combat;
    // The game data stopped at 66.097; pass-1 ACKs opened the gate twice more, the last time with the
    // third sends of H158 and H159 at 66.677.
    expect(dz.lastGameDataS).toBeCloseTo(66.097, 3);
    expect(dz.lastDatagramS).toBeCloseTo(66.677, 3);
    const between = sent.filter(
      (d) => d.from === 'client' && d.t > (dz.lastDatagramS as number) && d.t < dz.disconnectS,
    );
    expect(between).toEqual([]);
    for (const e of dz.entries) {
      expect(e.lastSendS).toBeLessThanOrEqual(dz.lastDatagramS as number);
      // Timer expired long before: only the shut gate (nothing written by pass 1, retransmits or first
      // sends, and not yet disconnecting) held them back.
      expect(dz.disconnectS - e.lastSendS).toBeGreaterThan(2 * RESEND_S);
    }
    // H148 and H149, a little older, reached their ninth send in that last open datagram and were freed.
    const sends = ackSends(sent, dz.disconnectS);
    expect(sends.get('H148')?.length).toBe(9);
    expect(sends.get('H149')?.length).toBe(9);
    expect(sends.get('H149')?.at(-1)).toBeCloseTo(66.677, 3);
  });

  it('the rule, on five seeds: stranded are exactly the ACKs first sent within 6 resend intervals of the youngest', () => {
    // An entry needs 8 intervals from its first to its ninth send; after the game data stops the gate
    // opens last with the youngest entry's third send, 2 intervals after its first.
    for (const seed of [1, 2, 3, 4, 5]) {
      const { dz, sent } = seed === 1 ? combat : run(COMBAT_DISCONNECT_FLOW, seed);
      const first = [...ackSends(sent, dz.disconnectS)].filter(([key]) => key.startsWith('H'));
      const youngest = Math.max(...first.map(([, t]) => t[0]));
      const window = first.filter(([, t]) => t[0] > youngest - 6 * RESEND_S).map(([key]) => key);
      expect([seed, dz.entries.map((e) => e.key).sort()]).toEqual([seed, window.sort()]);
      expect(dz.entries.length).toBeGreaterThan(2);
    }
  });
});
