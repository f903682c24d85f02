// Two PeerTransports joined by a fixed-latency, lossless wire, for transport
// tests that need exact event times without the link model.
import { decodeDatagram } from '../../src/core/codec/index.js';
import type { DataType, Located } from '../../src/core/codec/index.js';
import { Simulator, micros, msToUsUnrounded } from '../../src/core/engine/index.js';
import type { Micros } from '../../src/core/engine/index.js';
import { PeerTransport } from '../../src/model/transport/peer.js';
import { UpdateLoop } from '../../src/model/transport/update-loop.js';
import type { TransportHooks } from '../../src/model/transport/hooks.js';
import type { Delivery } from '../../src/model/transport/receive-channel.js';
import type { Role } from '../../src/model/transport/roles.js';
import { DEFAULT_PARAMS, resolveSwitches } from '../../src/model/transport/switches.js';
import type { PresetName, SwitchPatch, TransportParams } from '../../src/model/transport/switches.js';

interface WireRecord {
  timeUs: number;
  from: Role;
  bytes: Uint8Array;
  messages: readonly Located[];
}

export interface Pair {
  sim: Simulator;
  server: PeerTransport;
  client: PeerTransport;
  sent: WireRecord[];
  delivered: Record<Role, Delivery[]>;
  gaveUp: number[];
  /** Called at each delivery to the game layer (during the receiver's dispatch step). */
  onDelivered: (role: Role, delivery: Delivery) => void;
  /** Drops the next datagrams from `from` whose index (0-based, per direction) is listed. */
  dropFrom: Record<Role, (index: number, bytes: Uint8Array) => boolean>;
  peer(role: Role): PeerTransport;
}

export function makePair(options: {
  preset?: PresetName;
  switches?: SwitchPatch;
  params?: Partial<TransportParams>;
  latencyUs?: number;
  clientPhaseUs?: number;
}): Pair {
  const sim = new Simulator();
  const switches = resolveSwitches(options.preset ?? 'stock', options.switches ?? {});
  const params: TransportParams = { ...DEFAULT_PARAMS, ...(options.params ?? {}) };
  const latencyUs = options.latencyUs ?? 5_000;
  let nextUid = 1_000_000;
  const pair = {
    sim,
    sent: [] as WireRecord[],
    delivered: { server: [] as Delivery[], client: [] as Delivery[] },
    gaveUp: [] as number[],
    dropFrom: { server: () => false, client: () => false } as Pair['dropFrom'],
    onDelivered: (() => {}) as Pair['onDelivered'],
  } as Pair;
  const counts: Record<Role, number> = { server: 0, client: 0 };
  const hooks = (role: Role): TransportHooks => ({
    emit: (bytes, uids) => {
      const decoded = decodeDatagram(bytes);
      if (!decoded.ok) throw new Error(`transport emitted a malformed datagram: ${decoded.error.reason}`);
      pair.sent.push({ timeUs: sim.now, from: role, bytes, messages: decoded.datagram.messages });
      const index = counts[role]++;
      if (pair.dropFrom[role](index, bytes)) return;
      const other = role === 'server' ? 'client' : 'server';
      const copy = [...uids];
      sim.after(micros(latencyUs), () => pair.peer(other).arrive(bytes, copy));
    },
    deliver: (d) => {
      pair.delivered[role].push(d);
      pair.onDelivered(role, d);
    },
    deliverUnreliable: (type, datagram, start, end) =>
      pair.delivered[role].push({
        type: type as DataType,
        low: type < 0x32,
        reliable: false,
        seq: null,
        payload: datagram.subarray(start, end),
        uid: -1,
      }),
    gaveUp: (uid) => pair.gaveUp.push(uid),
    acknowledged: () => {},
    refused: () => {},
    newUid: () => nextUid++,
  });
  pair.server = new PeerTransport('server', sim, switches, params, hooks('server'));
  pair.client = new PeerTransport('client', sim, switches, params, hooks('client'));
  pair.peer = (role) => (role === 'server' ? pair.server : pair.client);
  // Each peer on its own host's update loop, as a one-client session runs them.
  for (const [peer, phaseUs] of [
    [pair.server, 0],
    [pair.client, options.clientPhaseUs ?? 47_000],
  ] as const) {
    const loop = new UpdateLoop(sim, peer.params.tickMs, false);
    peer.activate();
    loop.add(peer);
    loop.start(micros(phaseUs));
  }
  return pair;
}

/** Payload bytes 0..n-1 with a leading opcode. */
export function payload(n: number, opcode = 0x06): Uint8Array {
  const p = new Uint8Array(n);
  p[0] = opcode;
  for (let i = 1; i < n; i++) p[i] = i & 0xff;
  return p;
}

export const ms = (x: number): Micros => msToUsUnrounded(x);
