// The test-only planted bugs sit behind one seam: the transport and the live peer read
// hooks resolved once when a peer is built (src/model/transport/planted-bugs.ts,
// src/live/peer/planted-wire.ts), and a peer without a planted bug holds the shared
// no-op hooks. A read of the plantedBug switch anywhere else in the transport or the
// live peer would put a test-only branch back in production code: the source check fails.
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:dgram';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulator, micros } from '../../src/core/engine/index.js';
import { LivePeer } from '../../src/live/peer/live-peer.js';
import { NO_LIVE_PLANTED, livePlanted } from '../../src/live/peer/planted-wire.js';
import { WallClock } from '../../src/live/wall-clock.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import type { TransportHooks } from '../../src/model/transport/hooks.js';
import { PeerTransport } from '../../src/model/transport/peer.js';
import { NO_PLANTED_FAULTS, PLANTED_BUG_TABLE, plantedFaults } from '../../src/model/transport/planted-bugs.js';
import type { Role } from '../../src/model/transport/roles.js';
import { DEFAULT_PARAMS, PLANTED_BUGS, PRESET_NAMES, resolveSwitches } from '../../src/model/transport/switches.js';
import type { PlantedBug } from '../../src/model/transport/switches.js';

const ROOT = join(import.meta.dirname, '../..');
/** Where the transport and the live peer live, and the only files there that may read the switch. */
const SEAM_FOLDERS = ['src/model/transport', 'src/live/peer'];
const SEAM_MODULES = new Set([
  'src/model/transport/switch-declarations.ts', // declares it
  'src/model/transport/switches.ts', // lists its values
  'src/model/transport/planted-bugs.ts',
  'src/live/peer/planted-wire.ts',
]);

interface Source {
  readonly path: string;
  readonly text: string;
}

/** Every line outside the planted-bug modules that names the plantedBug switch, as "path:line". */
function switchReads(sources: readonly Source[]): string[] {
  const found: string[] = [];
  for (const { path, text } of sources) {
    if (SEAM_MODULES.has(path)) continue;
    text.split('\n').forEach((line, i) => {
      if (/\bplantedBug\b/.test(line)) found.push(`${path}:${i + 1}`);
    });
  }
  return found;
}

const SOURCES: Source[] = SEAM_FOLDERS.flatMap((folder) =>
  readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ path: `${folder}/${name}`, text: readFileSync(join(ROOT, folder, name), 'utf8') })),
);

const noHooks: TransportHooks = {
  emit: () => {},
  deliver: () => {},
  deliverUnreliable: () => {},
  gaveUp: () => {},
  acknowledged: () => {},
  refused: () => {},
  newUid: () => 1,
};

function peer(role: Role, preset: (typeof PRESET_NAMES)[number], plantedBug?: PlantedBug): PeerTransport {
  const switches = resolveSwitches(preset, plantedBug === undefined ? {} : { plantedBug });
  return new PeerTransport(role, new Simulator(), switches, DEFAULT_PARAMS, noHooks);
}

/** A live server, built and never started: a fake socket and a clock that never moves. */
function liveServer(plantedBug: PlantedBug): LivePeer {
  const scenario = loadScenario('live');
  const socket = Object.assign(new EventEmitter(), { send: () => {} }) as unknown as Socket;
  return new LivePeer({
    role: 'server',
    scenario,
    switches: { ...switchesFor(scenario, 'stock'), plantedBug },
    seed: 1,
    sockets: [socket],
    remote: null,
    clients: 2,
    durationUs: micros(1_000_000),
    clock: new WallClock(() => micros(0)),
  });
}

describe('planted bugs behind one seam', () => {
  it('a peer built without a planted bug holds the shared no-op hooks, in every preset and role', () => {
    for (const preset of PRESET_NAMES)
      for (const role of ['server', 'client'] as const) expect(peer(role, preset).planted).toBe(NO_PLANTED_FAULTS);
    // The shared object cannot be written: no run can switch a bug on in every other peer.
    expect(Object.isFrozen(NO_PLANTED_FAULTS)).toBe(true);
  });

  it('a peer built with a planted bug holds that bug hooks, not the shared ones', () => {
    const planted = peer('server', 'stock', 'no-duplicate-ack').planted;
    expect(planted).not.toBe(NO_PLANTED_FAULTS);
    expect(planted.skipDuplicateAck).toBe(true);
    expect(peer('server', 'stock', 'retransmit-queue-16').planted.retransmitSlots).toBe(16);
  });

  it('a live server without a planted bug holds the shared no-op live hooks, and its connections the no-op transport hooks', () => {
    const live = liveServer('none');
    expect(live.planted).toBe(NO_LIVE_PLANTED);
    expect(live.connections.length).toBe(2);
    for (const c of live.connections) expect(c.peer.planted).toBe(NO_PLANTED_FAULTS);
    expect(liveServer('peer-by-id').planted.peerById).toBe(true);
  });

  it('every planted bug but none sets a hook: in the transport, or on the live wire when its row says live', () => {
    expect(Object.keys(PLANTED_BUG_TABLE).sort()).toEqual([...PLANTED_BUGS].sort());
    for (const bug of PLANTED_BUGS) {
      const switches = resolveSwitches('stock', { plantedBug: bug });
      const row = PLANTED_BUG_TABLE[bug];
      const inModel = plantedFaults(switches) !== NO_PLANTED_FAULTS;
      const onWire = livePlanted(switches) !== NO_LIVE_PLANTED;
      expect([bug, inModel || onWire]).toEqual([bug, bug !== 'none']);
      expect([bug, onWire]).toEqual([bug, row.live === true]);
      expect(row.meaning.length).toBeGreaterThan(10);
    }
  });

  it('no file of the transport or the live peer reads the plantedBug switch outside the planted-bug modules', () => {
    expect(SOURCES.length).toBeGreaterThan(40);
    expect(SOURCES.map((s) => s.path)).toEqual(expect.arrayContaining([...SEAM_MODULES]));
    expect(switchReads(SOURCES)).toEqual([]);
  });

  it('a test-only branch planted in the transport is found (the check can fail)', () => {
    const planted = SOURCES.map((s) =>
      s.path === 'src/model/transport/receiver.ts'
        ? { ...s, text: `${s.text}\nif (this.parts.switches.plantedBug === 'no-duplicate-ack') return;\n` }
        : s,
    );
    const lines = SOURCES.find((s) => s.path === 'src/model/transport/receiver.ts')?.text.split('\n').length ?? 0;
    expect(switchReads(planted)).toEqual([`src/model/transport/receiver.ts:${lines + 1}`]);
  });
});
