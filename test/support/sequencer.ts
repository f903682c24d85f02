// The order vitest's pool starts test files in. The pool is first in, first out with
// maxWorkers places, so the order decides what runs side by side. Most files are
// CPU-bound, and two cores fit two of them; the live files mostly wait on sockets and
// wall-clock timers, so they run in the places left over, beside the CPU-bound ones.
// The order comes from simulating that pool with each file's rough cost (COST_S):
// the next place to free takes the costliest CPU-bound file whose cores are free
// (fewer than CPU_PLACES busy with it), else the costliest waiting one, else the
// costliest CPU-bound one. So a file that keeps two cores busy runs beside waiting
// files, never beside another CPU-bound one. Unknown files cost little and
// keep their project together (the unit project shares one module graph per worker).
import { relative } from 'node:path';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/** CPU-bound files at once: one per core of the 2-core CI machine. */
const CPU_PLACES = 2;

/**
 * Seconds each file took, from its start to its end (hooks included), with two files at once on
 * the 2-core machine, rounded; files under 4 s are left out. Only their sizes relative to each
 * other matter: the order, not the figures, is what the sequencer makes of them.
 */
const COST_S: Readonly<Record<string, number>> = {
  'test/docs/examples.test.ts': 207,
  'test/live/conform.test.ts': 117,
  'test/live/conform-planted.test.ts': 81,
  'test/swarm/cli.test.ts': 32,
  'test/swarm/swarm-2.test.ts': 30,
  // One file of 26 s split in three, shared by their times on a loaded machine.
  'test/capture/pcapng-export-run.test.ts': 12,
  'test/capture/pcapng-export-commands.test.ts': 7,
  'test/capture/pcapng-export-refusals.test.ts': 7,
  'test/check/check.test.ts': 22,
  'test/session/wrap-hazard.test.ts': 20,
  'test/swarm/swarm-1.test.ts': 17,
  'test/swarm/swarm-3.test.ts': 17,
  'test/swarm/planted-bug.test.ts': 16,
  'test/report/reports.test.ts': 15,
  'test/report/committed.test.ts': 14,
  'test/dissector/dissector-drops.test.ts': 13,
  'test/dissector/dissector-profile.test.ts': 12,
  // One file of 24 s split in three, shared by their times on a loaded machine.
  'test/dissector/dissector-crafted.test.ts': 9,
  'test/dissector/dissector-runs.test.ts': 8,
  'test/dissector/dissector-claims.test.ts': 7,
  'test/capture/import-tshark.test.ts': 10,
  'test/capture/pcapng-interrupt.test.ts': 10,
  'test/cli/pipe.test.ts': 9,
  'test/rtype/scheme-reports.test.ts': 9,
  'test/session/fixed-promise.test.ts': 9,
  'test/sweep/cli.test.ts': 8,
  'test/swarm/ends.test.ts': 8,
  'test/live/reconnect-swarm.test.ts': 7,
  'test/shrink/planted.test.ts': 7,
  'test/cli/compare.test.ts': 6,
  'test/scenarios/limits.test.ts': 6,
  'test/dissector/dissector-dialect.test.ts': 5,
  'test/scenarios/builtins.test.ts': 5,
  'test/shrink/default-out.test.ts': 5,
  'test/shrink/multi-client.test.ts': 5,
  'test/swarm/generator.test.ts': 5,
  'test/check/phase-cut.test.ts': 4,
  'test/layering/time-units.test.ts': 4,
  'test/rtype/reproduce-table.test.ts': 4,
  'test/transport/wraparound.test.ts': 4,
  // Waiting on real sockets and timers.
  'test/live/peer.test.ts': 57,
  'test/live/mixed-ends.test.ts': 41,
  'test/live/peer-proxy.test.ts': 38,
  'test/live/flood.test.ts': 36,
  'test/live/peer-manifest-file.test.ts': 26,
  'test/live/conform-cli.test.ts': 16,
  'test/live/peer-manifest.test.ts': 16,
  'test/live/peer-cli.test.ts': 11,
  'test/live/peer-dialect.test.ts': 10,
  'test/live/proxy.test.ts': 7,
  // A 30 s soak (by its own clock), a Ctrl-C one and a Chromium render.
  'test/soak/soak-cli.test.ts': 36,
};

/** Files that keep more than one core busy themselves (the examples run two simulations at once). */
const CORES: Readonly<Record<string, number>> = {
  'test/docs/examples.test.ts': 2,
  // Eighteen campaigns at once, each flooding its server in the wrap cases.
  'test/live/conform-planted.test.ts': 2,
};

/**
 * Files under test/live/ that are CPU-bound all the same: conformance campaigns (their wraps flood
 * the servers), and the reconnect swarm, which runs on the in-process virtual network.
 */
const BUSY_LIVE = new Set([
  'test/live/conform.test.ts',
  'test/live/conform-planted.test.ts',
  'test/live/reconnect-swarm.test.ts',
]);

/** A file of the integration project under test/live/ opens real sockets and waits on them. */
function waits(spec: TestSpecification, path: string): boolean {
  return spec.project.name === 'integration' && path.startsWith('test/live/') && !BUSY_LIVE.has(path);
}

interface Item {
  readonly spec: TestSpecification;
  readonly costS: number;
  /** Cores it keeps busy: 0 for a file that waits. */
  readonly cores: number;
}

export default class CostSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const items: Item[] = files.map((spec) => {
      const path = relative(root, spec.moduleId);
      // Integration before unit at equal cost: the unit files then come last, together.
      const costS = COST_S[path] ?? (spec.project.name === 'integration' ? 2 : 0.5);
      return { spec, costS, cores: waits(spec, path) ? 0 : (CORES[path] ?? 1) };
    });
    const byCost = (a: Item, b: Item) => b.costS - a.costS || a.spec.moduleId.localeCompare(b.spec.moduleId);
    // Files that keep two cores busy first, back to back, while the waiting files take the other place.
    const cpu = items.filter((i) => i.cores > 0).sort((a, b) => b.cores - a.cores || byCost(a, b));
    const waiting = items.filter((i) => i.cores === 0).sort(byCost);
    const places = Math.max(1, this.ctx.config.maxWorkers);
    const running: Array<{ endS: number; cores: number }> = [];
    const order: TestSpecification[] = [];
    let nowS = 0;
    while (cpu.length + waiting.length > 0) {
      if (running.length >= places) {
        running.sort((a, b) => a.endS - b.endS);
        nowS = (running.shift() as { endS: number }).endS;
      }
      const busy = running.reduce((sum, r) => sum + r.cores, 0);
      // The costliest CPU-bound file whose cores are free; else a waiting one; else the costliest CPU-bound one.
      const fits = cpu.findIndex((i) => busy + i.cores <= CPU_PLACES);
      const next =
        (fits >= 0 ? cpu.splice(fits, 1)[0] : undefined) ?? (waiting.length > 0 ? waiting.shift() : cpu.shift());
      if (next === undefined) break;
      order.push(next.spec);
      running.push({ endS: nowS + next.costS, cores: next.cores });
    }
    return order;
  }
}
