// Ship deaths in combat (traffic.deaths, docs/sources.md 32): the death's burst reaches
// every player at once; the wreck keeps its StateUpdates through the explosion but starts
// no game message; then the explosion's last messages, the ship selection without the
// player's StateUpdates, and its ObjCreateTeam at the pick. The server keeps sending a
// player on the selection screen the game, or nothing (whileDead).
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

/** The selection screen: the pick after 4.5 s, the first StateUpdate 150 ms later. */
const PAUSE_S = 4.65;
const EXPLOSION_S = 2;

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
        deaths: {
          perMinute: 4,
          explosionMs: 2000,
          whileDead,
          burst: { ObjectExplodingEvent: 1, Explosion: 1 },
          afterExplosion: { SubsystemEvent: 2 },
          onPick: { ObjCreateTeam: 1 },
        },
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

  it("resolves the selection from the join's (4.5 s), poisson arrivals, and no messages unless named", () => {
    expect(game.scenario.traffic.deaths).toEqual({
      perMinute: 4,
      arrival: 'poisson',
      explosionMs: 2000,
      selectionMs: 4500,
      whileDead: 'game',
      burst: { ObjectExplodingEvent: 1, Explosion: 1 },
      afterExplosion: { SubsystemEvent: 2 },
      onPick: { ObjCreateTeam: 1 },
    });
    expect(parseScenario(JSON.stringify({ name: 'none' }), 'test').traffic.deaths).toBeNull();
  });

  it('sends every player the burst in one datagram; the wreck keeps its StateUpdates for the explosion, then the selection pauses them until the pick', () => {
    const explosions = game.sends.filter((x) => x.from === 'server' && x.opcode === Opcode.Explosion);
    const deaths = explosions.filter((x) => x.client === 1).length;
    // ~8 deaths in 2 min at 4/min: the burst reached every player, each time with its ObjectExplodingEvent in the same datagram.
    expect(deaths).toBeGreaterThanOrEqual(3);
    for (const k of [2, 3]) expect(explosions.filter((x) => x.client === k)).toHaveLength(deaths);
    for (const e of explosions)
      expect(game.sends.some((x) => x.datagram === e.datagram && x.opcode === Opcode.PythonEvent)).toBe(true);
    // Each death stops one player's StateUpdates for the selection only (10/s periodic otherwise: no other gap over 1 s).
    const pauses = [1, 2, 3].flatMap((k) => gaps(game.sends, 'client', k, 1).map(([a, b]) => ({ k, a, b })));
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses.length).toBeLessThanOrEqual(deaths);
    for (const p of pauses) {
      expect(p.b - p.a).toBeGreaterThan(PAUSE_S - 0.3);
      expect(p.b - p.a).toBeLessThan(PAUSE_S + 0.3);
      // The burst came one explosion before the pause: the wreck sent StateUpdates in between, and no game message of its own.
      const death = explosions.find((e) => e.client === p.k && Math.abs(p.a - EXPLOSION_S - e.t) < 0.3);
      expect(death).toBeDefined();
      const t0 = (death as Send).t;
      expect(game.sends.some((x) => x.from === 'client' && x.client === p.k && !x.reliable && x.t > t0 + 0.5)).toBe(
        true,
      );
      expect(
        game.sends.some(
          (x) => x.from === 'client' && x.client === p.k && x.reliable && x.t > t0 + 0.2 && x.t < p.b - 0.3,
        ),
      ).toBe(false);
      // The explosion's end sends every player 2 subsystem events (17-byte PythonEvents) in one datagram.
      const after = game.sends.filter(
        (x) => x.from === 'server' && x.opcode === Opcode.PythonEvent && Math.abs(x.t - p.a) < 0.2,
      );
      expect(after.filter((x) => x.client === p.k).length).toBeGreaterThanOrEqual(2);
      // The pick: the player's ObjCreateTeam just before its first StateUpdate, relayed to both others.
      const pick = game.sends.find(
        (x) =>
          x.from === 'client' && x.client === p.k && x.opcode === Opcode.ObjCreate && x.t > p.b - 0.5 && x.t <= p.b,
      );
      expect(pick).toBeDefined();
      for (const k of [1, 2, 3].filter((c) => c !== p.k))
        expect(
          game.sends.some(
            (x) =>
              x.from === 'server' &&
              x.client === k &&
              x.opcode === Opcode.ObjCreate &&
              x.t > (pick as Send).t &&
              x.t < (pick as Send).t + 0.5,
          ),
        ).toBe(true);
    }
    // The server never respawns a ship: every ObjCreate it sends relays a player's pick to the two others.
    const picks = game.sends.filter((x) => x.from === 'client' && x.opcode === Opcode.ObjCreate).length;
    expect(picks).toBeGreaterThanOrEqual(pauses.length);
    expect(game.sends.filter((x) => x.from === 'server' && x.opcode === Opcode.ObjCreate)).toHaveLength(2 * picks);
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
    expect(bad({ perMinute: 1, onPick: { Respawn: 1 } })).toThrow(/traffic\.deaths\.onPick/);
    expect(bad({ perMinute: 1, arrival: 'bursty' })).toThrow(/traffic\.deaths\.arrival/);
    expect(bad({ perMinute: 1, whileDead: 'sometimes' })).toThrow(/traffic\.deaths\.whileDead/);
  });
});
