// The order vitest's pool starts test files in. The pool is first in, first out with
// maxWorkers places, so the order decides what runs side by side. Most files are
// CPU-bound, and two cores fit two of them; the live files mostly wait on sockets and
// wall-clock timers, so they run in the places left over, beside the CPU-bound ones.
// The order comes from simulating that pool with each file's rough cost (COST_S):
// the next place to free takes the costliest CPU-bound file while fewer than
// CPU_PLACES cores are busy, else the costliest waiting one. Unknown files cost little and
// keep their project together (the unit project shares one module graph per worker).
import { relative } from 'node:path';
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/** CPU-bound files at once: one per core of the 2-core CI machine. */
const CPU_PLACES = 2;

/** Seconds one file took alone on one core (vitest --reporter=json), rounded; the slow ones only. */
const COST_S: Readonly<Record<string, number>> = {
  'test/docs/examples.test.ts': 130,
  'test/report/committed.test.ts': 45,
  'test/check/check.test.ts': 30,
  'test/dissector/dissector.test.ts': 25,
  'test/swarm/swarm-1.test.ts': 15,
  'test/swarm/swarm-2.test.ts': 15,
  'test/swarm/swarm-3.test.ts': 15,
  'test/report/reports.test.ts': 13,
  'test/session/wrap-hazard.test.ts': 12,
  'test/capture/pcapng-export.test.ts': 12,
  'test/sweep/cli.test.ts': 10,
  'test/report/long-session.test.ts': 10,
  'test/swarm/planted-bug.test.ts': 9,
  'test/dissector/dissector-drops.test.ts': 8,
  'test/dissector/dissector-dialect.test.ts': 6,
  // Waiting on real sockets and timers.
  'test/live/conform.test.ts': 95,
  'test/live/conform-planted.test.ts': 80,
  'test/live/peer-proxy.test.ts': 34,
  'test/live/peer.test.ts': 33,
  'test/live/mixed-ends.test.ts': 31,
  'test/live/flood.test.ts': 22,
  'test/live/peer-manifest-file.test.ts': 21,
  'test/live/conform-cli.test.ts': 16,
  'test/live/peer-manifest.test.ts': 16,
  'test/live/peer-cli.test.ts': 9,
  'test/live/peer-dialect.test.ts': 9,
  'test/soak/soak-cli.test.ts': 30,
};

/** Files that keep more than one core busy themselves (the examples run two simulations at once). */
const CORES: Readonly<Record<string, number>> = {
  'test/docs/examples.test.ts': 2,
  // Eighteen campaigns at once, each flooding its server in the wrap cases.
  'test/live/conform-planted.test.ts': 2,
};

/** Live files that are CPU-bound all the same: conformance campaigns, whose verdicts have time windows. */
const BUSY_LIVE = new Set(['test/live/conform.test.ts', 'test/live/conform-planted.test.ts']);

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
    const cpu = items.filter((i) => i.cores > 0).sort(byCost);
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
      const next = (busy < CPU_PLACES || waiting.length === 0 ? cpu.shift() : waiting.shift()) ?? waiting.shift();
      if (next === undefined) break;
      order.push(next.spec);
      running.push({ endS: nowS + next.costS, cores: next.cores });
    }
    return order;
  }
}
