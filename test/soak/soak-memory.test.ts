// Opt-in measurement: a soak of BCSIM_SOAK_MEMORY_HOURS hours (3 clients of
// valentines against a stock server, on the virtual network) prints the heap each
// hour and checks that its low points do not climb. Run:
//   BCSIM_SOAK_MEMORY_HOURS=24 node --expose-gc node_modules/vitest/vitest.mjs run test/soak/soak-memory.test.ts --pool=forks
// (about 6 minutes of CPU for 24 h). docs/soak.md quotes its figures.
import { expect, it } from 'vitest';
import { micros } from '../../src/core/engine/index.js';
import { Soak, soakPlan } from '../../src/live/soak/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import { VirtualNet, clientAddresses, netServer } from '../support/live-net.js';

const HOURS = Number(process.env.BCSIM_SOAK_MEMORY_HOURS ?? 0);
const HOUR_MS = 3_600_000;

it.runIf(HOURS > 0)(
  `a ${HOURS} h soak holds its memory`,
  async () => {
    const durationUs = micros(HOURS * HOUR_MS * 1000);
    const scenario = soakPlan(loadScenario('valentines', { sets: ['clients=3'] }), durationUs).scenario;
    const net = new VirtualNet();
    const stock = switchesFor(scenario, 'stock');
    netServer(net, { scenario, switches: stock, seed: 1, durationS: null, clients: 3, wireLogBytes: 1 << 20 });
    const soak = new Soak({
      scenario,
      switches: stock,
      seed: 1,
      clients: 3,
      durationUs,
      loss: null,
      sockets: clientAddresses('127.0.0.1:40001', 3).map((a) => net.socket(a)),
      server: { host: '127.0.0.1', port: 22101, family: 4 },
      clock: net.clock(),
    });
    soak.start();
    const heapMb: number[] = [];
    for (let h = 1; h <= HOURS; h++) {
      for (let m = 0; m < 60; m++) {
        net.advance(60_000);
        // The virtual network's own record of every datagram is the test's, not the soak's.
        net.carried.length = 0;
      }
      (globalThis as { gc?: () => void }).gc?.();
      heapMb.push(process.memoryUsage().heapUsed / 1e6);
      console.log(`hour ${h}: heap ${heapMb.at(-1)?.toFixed(1)} MB, ${soak.meter.rows.length} minute rows`);
    }
    net.advance(3_000);
    net.close();
    const measured = await soak.done;
    expect(measured.stopReason).toBe('duration');
    const third = Math.max(1, Math.floor(HOURS / 3));
    const low = (xs: number[]) => Math.min(...xs);
    expect(low(heapMb.slice(-third))).toBeLessThan(1.5 * low(heapMb.slice(0, third)) + 20);
  },
  3_600_000,
);
