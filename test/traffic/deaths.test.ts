// Ship deaths in combat (traffic.deaths): the death's messages reach every player at
// once, and the dead player sends no StateUpdates and starts no game messages until
// its explosion and ship selection are over; the server keeps sending it the game, or
// nothing (whileDead).
import { describe, expect, it } from 'vitest';
import { TYPE_GAME, decodeDatagram } from '../../src/core/codec/index.js';
import { parseScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { SendNote } from '../../src/model/transport/datagram-builder.js';
import { Opcode } from '../../src/model/traffic/payloads.js';

interface Send {
  t: number;
  from: 'server' | 'client';
  client: number;
  opcode: number;
  reliable: boolean;
  datagram: number;
}

const PAUSE_S = 2 + 4.65;

function run(whileDead: 'game' | 'nothing') {
  const scenario = parseScenario(
    JSON.stringify({
      name: 'deaths',
      duration: '130s',
      clients: 3,
      traffic: {
        phases: [
          {
            kind: 'combat',
            duration: '120s',
            stateUpdatesPerSecond: 10,
            arrival: 'periodic',
            reliablePerSecond: 2,
            clientShare: 0.3,
            eventKinds: ['StopFiring'],
          },
        ],
        deaths: { perMinute: 4, explosionMs: 2000, whileDead, burst: { PythonEvent: 1, Explosion: 1 } },
      },
    }),
    'test',
  );
  const sends: Send[] = [];
  let datagram = 0;
  runScenario(scenario, {
    preset: 'stock',
    observer: {
      datagramSent(timeUs, from, bytes, _uids, notes, client) {
        const decoded = decodeDatagram(bytes);
        if (!decoded.ok) throw new Error('malformed datagram on the wire');
        decoded.datagram.messages.forEach((m, i) => {
          if (notes[i] !== SendNote.FirstSend || m.type !== TYPE_GAME) return;
          sends.push({ t: timeUs / 1e6, from, client, opcode: m.payload[0], reliable: m.reliable, datagram });
        });
        datagram++;
      },
    },
  });
  return { sends, scenario };
}

/** Gaps longer than `s` between successive StateUpdates on one connection and direction. */
function gaps(sends: readonly Send[], from: 'server' | 'client', client: number, s: number): Array<[number, number]> {
  const times = sends
    .filter((x) => x.from === from && x.client === client && x.opcode === Opcode.StateUpdate && !x.reliable)
    .map((x) => x.t);
  const out: Array<[number, number]> = [];
  for (let i = 1; i < times.length; i++) if (times[i] - times[i - 1] > s) out.push([times[i - 1], times[i]]);
  return out;
}

describe('ship deaths (traffic.deaths)', () => {
  const game = run('game');

  it('resolves the pause from the join: the ship selection and the first StateUpdate 150 ms after it, plus the explosion', () => {
    expect(game.scenario.traffic.deaths).toEqual({
      perMinute: 4,
      explosionMs: 2000,
      selectionMs: 4650,
      whileDead: 'game',
      burst: { PythonEvent: 1, Explosion: 1 },
    });
    expect(parseScenario(JSON.stringify({ name: 'none' }), 'test').traffic.deaths).toBeNull();
  });

  it('sends every player the death messages in one datagram, and the dead player pauses for the explosion and the selection', () => {
    const explosions = game.sends.filter((x) => x.from === 'server' && x.opcode === Opcode.Explosion);
    const deaths = explosions.filter((x) => x.client === 1).length;
    // ~8 deaths in 2 min at 4/min: the burst reached every player, each time with its PythonEvent in the same datagram.
    expect(deaths).toBeGreaterThanOrEqual(3);
    for (const k of [2, 3]) expect(explosions.filter((x) => x.client === k)).toHaveLength(deaths);
    for (const e of explosions)
      expect(game.sends.some((x) => x.datagram === e.datagram && x.opcode === Opcode.PythonEvent)).toBe(true);
    // Each death stops one player's StateUpdates for the pause (10/s periodic otherwise: no other gap over 1 s).
    const pauses = [1, 2, 3].flatMap((k) => gaps(game.sends, 'client', k, 1).map(([a, b]) => ({ k, a, b })));
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses.length).toBeLessThanOrEqual(deaths);
    for (const p of pauses) {
      expect(p.b - p.a).toBeGreaterThan(PAUSE_S - 0.3);
      expect(p.b - p.a).toBeLessThan(PAUSE_S + 0.3);
      // The death's messages came as the pause began, and the dead player started no game message in it.
      expect(explosions.some((e) => e.client === p.k && e.t >= p.a - 0.2 && e.t <= p.a + 0.3)).toBe(true);
      expect(
        game.sends.some(
          (x) => x.from === 'client' && x.client === p.k && x.reliable && x.t > p.a + 0.2 && x.t < p.b - 0.2,
        ),
      ).toBe(false);
    }
  });

  it('whileDead game: the server keeps sending a dead player the game; nothing: it sends it nothing until its new ship', () => {
    for (const k of [1, 2, 3]) expect(gaps(game.sends, 'server', k, 1)).toEqual([]);
    const quiet = run('nothing');
    const dead = [1, 2, 3].flatMap((k) => gaps(quiet.sends, 'client', k, 1).map(([a, b]) => ({ k, a, b })));
    expect(dead.length).toBeGreaterThan(0);
    for (const p of dead) {
      const fed = quiet.sends.filter(
        (x) => x.from === 'server' && x.client === p.k && x.t > p.a + 0.3 && x.t < p.b - 0.3,
      );
      expect([p.k, fed]).toEqual([p.k, []]);
    }
  });

  it('refuses a burst of an unknown kind or of more messages than a datagram holds, naming the field', () => {
    const bad = (deaths: object) => () => parseScenario(JSON.stringify({ name: 'x', traffic: { deaths } }), 'test');
    expect(bad({ perMinute: 1, burst: { Warp: 1 } })).toThrow(/traffic\.deaths\.burst/);
    expect(bad({ perMinute: 1, burst: { PythonEvent: 300 } })).toThrow(/traffic\.deaths\.burst.*255/);
    expect(bad({ perMinute: 1, whileDead: 'sometimes' })).toThrow(/traffic\.deaths\.whileDead/);
  });
});
