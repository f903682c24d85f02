// A randomised reconnect swarm against `peer server`: up to 16 client
// addresses join, leave and come back from the same address and port, while
// other addresses replay a Connect or a Disconnect. No datagram is applied to
// another address's connection, and the summary keeps one entry per client
// that joined. CI runs 50 runs; BCSIM_RECONNECT_RUNS=500 runs the long swarm.
import { describe, expect, it } from 'vitest';
import { namedStream } from '../../src/core/engine/index.js';
import type { RandomStream } from '../../src/core/engine/index.js';
import { decrypt } from '../../src/core/codec/index.js';
import type { LivePeer } from '../../src/live/peer/live-peer.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import { SERVER_ADDRESS, VirtualNet, netClient, netServer, netSummary, watchSources } from '../support/live-net.js';
import type { NetPeerOptions } from '../support/live-net.js';

const RUNS = Number(process.env.BCSIM_RECONNECT_RUNS ?? 50);
const ADDRESSES = Array.from({ length: 16 }, (_, i) => `127.0.0.${10 + i}:${40_000 + i}`);
const RUN_MS = 20_000;
const scenario = loadScenario('live');

interface Tenure {
  readonly address: string;
  readonly client: LivePeer;
  readonly fromMs: number;
  leftMs: number | null;
}

function pick<T>(r: RandomStream, list: readonly T[]): T {
  return list[Math.floor(r.next() * list.length)];
}

/** One run: what happened, and every way it broke the rules (empty: none). */
function swarmRun(seed: number): { tenures: number; joined: number; replays: number; problems: string[] } {
  const r = namedStream(seed, 'reconnect-swarm');
  const options: NetPeerOptions = {
    scenario,
    switches: switchesFor(scenario, pick(r, ['fixed', 'stock'] as const)),
    seed,
    durationS: null,
  };
  const net = new VirtualNet();
  const places = 1 + Math.floor(r.next() * 16);
  const server = netServer(net, { ...options, clients: places });
  const sources = watchSources(net, server);
  // Addresses that play clients, and addresses that only replay what clients sent.
  const split = 1 + Math.floor(r.next() * 15);
  const clientAddresses = ADDRESSES.slice(0, split);
  const ghosts = ADDRESSES.slice(split);
  const tenures: Tenure[] = [];
  const active = new Map<string, Tenure>();
  let replays = 0;
  while (net.nowUs / 1000 < RUN_MS) {
    const at = pick(r, clientAddresses);
    const now = net.nowUs / 1000;
    const holding = active.get(at);
    if (holding === undefined) {
      const t: Tenure = {
        address: at,
        client: netClient(net, at, { ...options, seed: seed * 100 + tenures.length }),
        fromMs: now,
        leftMs: null,
      };
      tenures.push(t);
      active.set(at, t);
    } else if (holding.client.stopReason === null) {
      holding.client.stop('signal');
      holding.leftMs = now;
      active.delete(at);
    } else active.delete(at);
    // A ghost replays a client's Connect or Disconnect, as a flood of captured datagrams would.
    if (ghosts.length > 0 && r.next() < 0.5) {
      const seen = net.carried.filter((d) => d.to === SERVER_ADDRESS && !ghosts.includes(d.from));
      if (seen.length > 0) {
        net.inject(pick(r, ghosts), SERVER_ADDRESS, pick(r, seen).bytes);
        replays++;
      }
    }
    net.advance(200 + Math.floor(r.next() * 2_800));
  }
  for (const t of active.values()) if (t.client.stopReason === null) t.client.stop('signal');
  net.advance(3_000);
  net.close();

  const problems: string[] = [];
  if (server.clock.failure !== null) problems.push(`server failed: ${String(server.clock.failure)}`);
  for (const [id, from] of sources)
    if (from.size !== 1 || from.has('?')) problems.push(`connection ${id} read datagrams from ${[...from].join(', ')}`);
  const summary = netSummary(server, options, SERVER_ADDRESS);
  const entries = Object.values(summary.peer.connections);
  const joined = tenures.filter((t) => t.client.connections[0].joinedAtUs !== null);
  for (const address of clientAddresses) {
    const here = entries.filter((e) => e.address === address);
    const tenuresHere = tenures.filter((t) => t.address === address);
    const joinedHere = joined.filter((t) => t.address === address);
    if (here.length > tenuresHere.length)
      problems.push(`${address}: ${here.length} summary entries for ${tenuresHere.length} clients`);
    if (here.length < joinedHere.length)
      problems.push(`${address}: ${joinedHere.length} clients joined, ${here.length} summary entries`);
  }
  // A client that joined was never ended by anyone but itself: no other address's datagrams reached its connection.
  for (const t of joined)
    if (t.client.stopReason === 'connection-ended')
      problems.push(
        `${t.address} (from ${t.fromMs} ms): its connection ended (${t.client.connections[0].peer.state}) before it left`,
      );
  for (const [id] of sources)
    if (!entries.some((e) => e.connection === id)) problems.push(`connection ${id} is not in the summary`);
  // Ghost datagrams are replays of real ones: they decrypt (a sanity check of the replay itself).
  for (const d of net.carried)
    if (ghosts.includes(d.from) && decrypt(d.bytes).length === 0) problems.push('an empty replay');
  return { tenures: tenures.length, joined: joined.length, replays, problems };
}

describe(`reconnect swarm: ${RUNS} runs, up to 16 addresses`, () => {
  it('no datagram reaches another address connection, and every client that joined keeps its own summary entry', () => {
    const failures: string[] = [];
    let tenures = 0;
    let joined = 0;
    let replays = 0;
    for (let seed = 1; seed <= RUNS; seed++) {
      const run = swarmRun(seed);
      tenures += run.tenures;
      joined += run.joined;
      replays += run.replays;
      for (const p of run.problems) failures.push(`seed ${seed}: ${p}`);
    }
    expect(failures).toEqual([]);
    // The swarm exercised what it claims: reconnections, joins and replays.
    expect(tenures).toBeGreaterThan(RUNS * 3);
    expect(joined).toBeGreaterThan(RUNS);
    expect(replays).toBeGreaterThan(RUNS);
  }, 600_000);
});
