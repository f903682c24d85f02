// `--duration` bounds a live run, goodbye included (src/live/peer/goodbye.ts):
// LivePeer on a fake wall clock and a fake socket, so the times are exact.
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { micros } from '../../src/core/engine/index.js';
import { WallClock } from '../../src/live/wall-clock.js';
import { LivePeer } from '../../src/live/peer/live-peer.js';
import { DISCONNECT_GRACE_US, goodbyePlan } from '../../src/live/peer/goodbye.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import type { PresetName } from '../../src/model/transport/switches.js';
import type { Role } from '../../src/model/transport/roles.js';

const S = 1_000_000;
/** Below the clock's stall threshold. */
const STEP_US = 100_000;

describe('goodbyePlan', () => {
  const scenario = loadScenario('live');
  const plan = (role: Role, preset: PresetName, seconds: number) => {
    const p = goodbyePlan(role, switchesFor(scenario, preset), micros(seconds * S));
    return [p.goodbyeAtUs / S, p.endByUs / S];
  };

  it('a draining client starts its goodbye two retransmit intervals (2 s each, docs/sources.md 11) early; every client ends 1 s after the duration at the latest', () => {
    expect(DISCONNECT_GRACE_US).toBe(S);
    expect(plan('client', 'fixed', 20)).toEqual([16, 21]);
    expect(plan('client', 'stock', 20)).toEqual([20, 21]);
    // At most half the run goes to the goodbye.
    expect(plan('client', 'fixed', 1)).toEqual([0.5, 2]);
  });

  it('a server says no goodbye: it stops at the duration', () => {
    expect(plan('server', 'fixed', 20)).toEqual([20, 20]);
    expect(plan('server', 'stock', 20)).toEqual([20, 20]);
  });
});

/** A LivePeer whose counterpart never answers, on a wall clock the test moves. */
function silentRun(role: Role, preset: PresetName, durationS: number) {
  let wallUs = 0;
  const clock = new WallClock(() => micros(wallUs));
  const socket = Object.assign(new EventEmitter(), {
    send: (_bytes: Uint8Array, _port: number, _address: string, done?: (error: Error | null) => void) => done?.(null),
  }) as unknown as Socket;
  const scenario = loadScenario('live');
  const live = new LivePeer({
    role,
    scenario,
    switches: switchesFor(scenario, preset),
    seed: 1,
    sockets: [socket],
    remote: role === 'client' ? { host: '127.0.0.1', port: 9, family: 4 } : null,
    clients: 1,
    durationUs: micros(durationS * S),
    clock,
  });
  let ended = false;
  void live.done.then(() => (ended = true));
  live.start();
  return {
    live,
    /**
     * Moves the wall to `seconds` in 0.1 s steps, letting every due event run as a process that
     * never stalled would (a longer leap is a stall: wall-clock.ts); resolves with whether the run has ended.
     */
    async at(seconds: number): Promise<boolean> {
      while (wallUs < seconds * S) {
        wallUs = Math.min(seconds * S, wallUs + STEP_US);
        clock.catchUp();
      }
      await new Promise((resolve) => setImmediate(resolve));
      return ended;
    },
  };
}

describe('a live run ends at most 1 s after --duration, goodbye included', () => {
  it('a fixed client starts its goodbye 4 s before the duration and ends exactly 1 s after it', async () => {
    const run = silentRun('client', 'fixed', 20);
    expect(await run.at(15.99)).toBe(false);
    expect(run.live.stopReason).toBeNull();
    expect(await run.at(16)).toBe(false);
    expect(run.live.stopReason).toBe('duration');
    expect(run.live.connections[0].peer.state).toBe('draining');
    expect(await run.at(20.99)).toBe(false);
    // Past the end: the run ended at 21 s exactly, and its clock stayed there.
    expect(await run.at(23.5)).toBe(true);
    expect(run.live.clock.now).toBe(21 * S);
  });

  it('a stock client says goodbye at the duration, and ends 1 s later', async () => {
    const run = silentRun('client', 'stock', 20);
    expect(await run.at(19.99)).toBe(false);
    expect(run.live.stopReason).toBeNull();
    expect(await run.at(20)).toBe(false);
    expect(run.live.stopReason).toBe('duration');
    expect(run.live.connections[0].peer.state).toBe('disconnecting');
    expect(await run.at(20.99)).toBe(false);
    expect(await run.at(22)).toBe(true);
    expect(run.live.clock.now).toBe(21 * S);
  });

  it('a server ends at the duration', async () => {
    const run = silentRun('server', 'fixed', 20);
    expect(await run.at(19.99)).toBe(false);
    expect(await run.at(20.5)).toBe(true);
    expect(run.live.stopReason).toBe('duration');
    expect(run.live.clock.now).toBe(20 * S);
  });

  it('a signal gives the goodbye 1 s; a second signal ends the run at once', async () => {
    const once = silentRun('client', 'fixed', 60);
    await once.at(5);
    once.live.stop('signal');
    expect(await once.at(5.99)).toBe(false);
    expect(await once.at(7)).toBe(true);
    expect(once.live.clock.now).toBe(6 * S);

    const twice = silentRun('client', 'fixed', 60);
    await twice.at(5);
    twice.live.stop('signal');
    expect(await twice.at(5.1)).toBe(false);
    twice.live.stop('signal');
    expect(await twice.at(5.1)).toBe(true);
    expect(twice.live.stopReason).toBe('signal');
  });
});
