// The traffic model: the measured join, combat rates and mix, arrival processes,
// phase cycling and the disconnect phase.
import { describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { parseScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { SendNote } from '../../src/model/transport/datagram-builder.js';
import { MEASURED_MIX, MESSAGES_PER_EVENT } from '../../src/model/traffic/mix.js';
import { Opcode } from '../../src/model/traffic/payloads.js';
import { recordSent } from '../support/record.js';
import type { Sent } from '../support/record.js';

function scenario(json: object, sets: string[] = []) {
  return parseScenario(JSON.stringify(json), 'test', sets);
}

/** First transmissions only: [time ms, from, type, size, opcode]. */
function firstSends(sent: Sent[]) {
  const out: Array<{
    t: number;
    from: string;
    type: number;
    size: number;
    opcode: number;
    reliable: boolean;
    frag: number | null;
    datagram: number;
  }> = [];
  sent.forEach((d, datagram) =>
    d.messages.forEach((m, i) => {
      if (d.notes[i] !== SendNote.FirstSend || m.type === 1) return;
      out.push({
        t: d.timeUs / 1000,
        from: d.from,
        type: m.type,
        size: m.size,
        opcode: m.payload[0],
        reliable: m.reliable,
        frag: m.fragIndex,
        datagram,
      });
    }),
  );
  return out;
}

describe('the join sequence', () => {
  const { observer, sent } = recordSent();
  runScenario(scenario({ name: 'join', duration: '20s' }), { preset: 'fixed', observer });
  const sends = firstSends(sent).filter((s) => !(s.type === 0 && s.t > 1000)); // drop later (idle, unreliable) keepalives

  it('follows docs/sources.md J1 step by step with the measured sizes', () => {
    const steps = sends.map((s) => `${s.from === 'client' ? 'C' : 'S'}:${s.type.toString(16)}:${s.size}`);
    expect(steps).toEqual([
      'C:3:15', // 1 Connect (type byte 0x03 as captured)
      'S:3:6', // 2 ConnectAck
      'S:32:27', //   + checksum request r0
      'C:0:22', // 3 keepalive
      'C:32:26', // 4 response r0 (sent before the echo comes back)
      'S:32:32', // 5 request r1
      'S:0:22', //   keepalive echoed, last in the same datagram (stock and fixed send keepalives outside the queues)
      'C:32:22', // 6 response r1
      'S:32:30', // 7 request r2
      'C:32:412', // 8 response r2, fragment 0 ...
      'C:32:411', //   fragment 1
      'C:32:196', //   fragment 2
      'S:32:33', // 9 request r3
      'C:32:46', // 10 response r3
      'S:32:36', // 11 request 0xFF
      'C:32:273', // 12 response 0xFF, not fragmented
      'S:32:6', // 13 0x28 ...
      'S:32:51', //    Settings
      'S:32:6', //    GameInit
      'C:32:7', // 14 NewPlayerInGame
      'S:32:20', // 15 MissionInit
      'S:32:8', //    DeletePlayerUI
    ]);
  });

  it('sends the 0xFF response unfragmented and the r2 response ~700 ms after its request', () => {
    const r2Request = sends.find((s) => s.size === 30);
    const r2Response = sends.find((s) => s.size === 412);
    expect(r2Response!.t - r2Request!.t).toBeGreaterThanOrEqual(700);
    expect(r2Response!.t - r2Request!.t).toBeLessThan(900);
    expect(sends.find((s) => s.size === 273)?.frag).toBeNull();
  });

  it('puts 0x28 + Settings + GameInit in one datagram', () => {
    const trio = sends.filter((s) => s.from === 'server' && (s.size === 51 || (s.size === 6 && s.type === TYPE_GAME)));
    expect(trio).toHaveLength(3);
    expect(new Set(trio.map((s) => s.datagram)).size).toBe(1);
  });
});

describe('combat traffic', () => {
  const seconds = 600;
  const { observer, sent } = recordSent();
  const { session } = runScenario(
    scenario({
      name: 'c',
      duration: '1h',
      traffic: {
        phases: ['join', { kind: 'combat', duration: `${seconds}s`, reliablePerSecond: 'measured' }, { kind: 'lobby' }],
      },
    }),
    { preset: 'fixed', observer },
  );
  const combat = session.traffic.phaseLog.find((p) => p.kind === 'combat')!;
  const startMs = combat.startUs / 1000;
  const inCombat = firstSends(sent).filter(
    (s) => s.t >= startMs && s.t < startMs + seconds * 1000 + 100 && s.type === TYPE_GAME,
  );

  it('sends ~49 StateUpdates/s each way, 15-25 bytes, unreliable (Poisson, 4-sigma)', () => {
    for (const from of ['client', 'server']) {
      const updates = inCombat.filter((s) => s.from === from && s.opcode === Opcode.StateUpdate);
      const mean = 49 * seconds;
      expect(Math.abs(updates.length - mean)).toBeLessThan(4 * Math.sqrt(mean));
      expect(updates.every((u) => !u.reliable && u.size >= 15 && u.size <= 25)).toBe(true);
      expect(new Set(updates.map((u) => u.size)).size).toBe(11);
    }
  });

  it('sends ~4.9 reliable/s in total from the measured mix (compound Poisson, 4-sigma)', () => {
    const reliable = inCombat.filter((s) => s.reliable && s.opcode !== Opcode.Chat);
    const eventRate = 4.9 / MESSAGES_PER_EVENT;
    const total = MEASURED_MIX.reduce((a, k) => a + k.count, 0);
    const meanSquareCopies = MEASURED_MIX.reduce((a, k) => a + k.count * k.copies ** 2, 0) / total;
    const chatShare = (MEASURED_MIX.find((k) => k.name === 'Chat')!.count / total) * eventRate;
    const mean = 4.9 * seconds - chatShare * seconds;
    const sd = Math.sqrt(eventRate * seconds * meanSquareCopies);
    expect(Math.abs(reliable.length - mean)).toBeLessThan(4 * sd);
    // Both peers send events (clientShare 0.5).
    const fromClient = reliable.filter((s) => s.from === 'client').length;
    expect(Math.abs(fromClient / reliable.length - 0.5)).toBeLessThan(0.1);
  });

  it('sends StartFiring as a duplicate pair in one datagram', () => {
    const starts = inCombat.filter((s) => s.opcode === Opcode.StartFiring);
    expect(starts.length).toBeGreaterThan(50);
    expect(starts.length % 2).toBe(0);
    for (let i = 0; i < starts.length; i += 2) {
      expect(starts[i + 1].datagram).toBe(starts[i].datagram);
      expect(starts[i + 1].size).toBe(starts[i].size);
    }
  });

  it('stops at the end of the phase: the lobby after it has no StateUpdates', () => {
    const after = firstSends(sent).filter(
      (s) => s.t > startMs + seconds * 1000 + 200 && s.opcode === Opcode.StateUpdate,
    );
    expect(after).toHaveLength(0);
  });
});

describe('arrival processes and phase cycling', () => {
  it('periodic StateUpdates arrive exactly at the rate', () => {
    const { observer, sent } = recordSent();
    const { session } = runScenario(
      scenario({
        name: 'p',
        duration: '2m',
        traffic: {
          phases: [
            'join',
            { kind: 'lull', duration: '60s', stateUpdatesPerSecond: 10, arrival: 'periodic' },
            { kind: 'lobby' },
          ],
        },
      }),
      { preset: 'fixed', observer },
    );
    const lull = session.traffic.phaseLog.find((p) => p.kind === 'lull')!;
    const updates = firstSends(sent).filter((s) => s.opcode === Opcode.StateUpdate && s.t >= lull.startUs / 1000);
    expect(updates.filter((u) => u.from === 'client')).toHaveLength(600);
    expect(updates.filter((u) => u.from === 'server')).toHaveLength(600);
  });

  it('cycles from repeatFrom after the last phase', () => {
    const { session } = runScenario(
      scenario({
        name: 'cycle',
        duration: '10m',
        traffic: {
          phases: [
            'join',
            { kind: 'combat', duration: '1m' },
            { kind: 'lull', duration: '30s' },
            { kind: 'lobby', duration: '1m' },
          ],
          repeatFrom: 1,
        },
      }),
      { preset: 'fixed' },
    );
    const log = session.traffic.phaseLog;
    expect(log.map((p) => p.kind).slice(0, 8)).toEqual([
      'join',
      'combat',
      'lull',
      'lobby',
      'combat',
      'lull',
      'lobby',
      'combat',
    ]);
    const gaps = log.slice(1).map((p, i) => (p.startUs - log[i].startUs) / 1e6);
    expect(gaps.slice(1, 6)).toEqual([60, 30, 60, 60, 30]);
  });

  it('lobby chat follows its rate', () => {
    const { observer, sent } = recordSent();
    runScenario(
      scenario({ name: 'chat', duration: '31m', traffic: { phases: ['join', { kind: 'lobby', chatPerMinute: 6 }] } }),
      { preset: 'fixed', observer },
    );
    const chats = firstSends(sent).filter((s) => s.opcode === Opcode.Chat && s.reliable);
    expect(Math.abs(chats.length - 180)).toBeLessThan(4 * Math.sqrt(180));
  });

  it('a disconnect phase closes both peers, and the stock Disconnect datagram carries stale ACKs', () => {
    const { observer, sent } = recordSent();
    // Without the fragment bug's retransmits the client's pass-2 gate stays shut in the lobby.
    const { summary } = runScenario(
      scenario({
        name: 'bye',
        duration: '60s',
        traffic: { phases: ['join', { kind: 'lobby', duration: '5s' }, 'disconnect'] },
      }),
      {
        preset: 'stock',
        switches: { fragmentAckCause: 'none' },
        observer,
      },
    );
    expect(summary.peers.client.state).toBe('closed');
    expect(summary.peers.server.state).toBe('closed');
    const bye = sent.find((d) => d.from === 'client' && d.messages.some((m) => m.type === 0x05))!;
    expect(bye.messages.find((m) => m.type === 0x05)?.size).toBe(10); // `05 0A C0 ss 00 | slot IPv4`, as captured
    // The ACKs of the server's join messages were stranded; the pass-1 ACKs of the keepalives (reliable,
    // docs/sources.md 26) opened the client's gate three times each in the lobby, so the oldest reached their
    // ninth send, and the other 9 ride along (ack-outbox-deadlock.md §2, exit 2).
    const acks = bye.messages.map((m, i) => [m.type, bye.notes[i]]).filter(([type]) => type === 1);
    expect(acks).toHaveLength(9);
    expect(acks.every(([, note]) => note === SendNote.StaleAck)).toBe(true);
    expect(summary.delivery.reliableLost).toBe(0);
  });
});

describe('quiet phases and per-phase update periods', () => {
  it('a quiet phase sends nothing from the game: no StateUpdates, events or chat', () => {
    const { observer, sent } = recordSent();
    const { session } = runScenario(
      scenario({
        name: 'q',
        duration: '3m',
        traffic: {
          phases: ['join', { kind: 'combat', duration: '30s' }, { kind: 'quiet', duration: '60s' }, { kind: 'combat' }],
        },
      }),
      { preset: 'stock', observer },
    );
    const log = session.traffic.phaseLog;
    const quiet = log.find((p) => p.kind === 'quiet')!;
    const after = log[log.indexOf(quiet) + 1];
    // From the second update on: StateUpdates queued just before the quiet began leave in its first one.
    const inQuiet = firstSends(sent).filter((s) => s.t > quiet.startUs / 1000 + 95 && s.t < after.startUs / 1000);
    // Only the transport's own idle keepalives (unreliable type 0x00) may leave.
    expect(inQuiet.filter((s) => s.type === TYPE_GAME)).toEqual([]);
    expect(inQuiet.filter((s) => s.type === 0).length).toBeGreaterThan(0);
    // The combat around it does send game messages.
    expect(firstSends(sent).filter((s) => s.type === TYPE_GAME && s.t >= after.startUs / 1000).length).toBeGreaterThan(
      1000,
    );
  });

  it('a phase sets the update periods while it runs; a role it leaves out keeps the scenario’s', () => {
    const { observer, sent } = recordSent();
    const { session } = runScenario(
      scenario({
        name: 'periods',
        duration: '40s',
        transport: { updatePeriodMs: { server: 5, client: 10 } },
        traffic: {
          phases: [
            'join',
            {
              kind: 'combat',
              duration: '20s',
              stateUpdatesPerSecond: 400,
              arrival: 'periodic',
              updatePeriodMs: { server: 40 },
            },
            { kind: 'combat', stateUpdatesPerSecond: 400, arrival: 'periodic' },
          ],
        },
      }),
      { preset: 'fixed', observer },
    );
    const log = session.traffic.phaseLog;
    const gaps = (from: 'server' | 'client', startUs: number, endUs: number) => {
      const t = sent
        .filter((d) => d.from === from && d.timeUs > startUs + 1e6 && d.timeUs < endUs)
        .map((d) => d.timeUs);
      return new Set(t.slice(1).map((x, i) => (x - t[i]) / 1000));
    };
    // Busy both ways (a StateUpdate every 2.5 ms): every update sends, so the gaps are the periods.
    expect(gaps('server', log[1].startUs, log[2].startUs)).toEqual(new Set([40]));
    expect(gaps('client', log[1].startUs, log[2].startUs)).toEqual(new Set([10]));
    expect(gaps('server', log[2].startUs, 40e6)).toEqual(new Set([5]));
  });
});
