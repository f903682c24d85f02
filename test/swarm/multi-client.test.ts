// Multi-player runs in the swarm: the client count and a client's own link
// faults come from a second stream per run, one-client runs carry no client settings, and a
// client's own faults act on its links only and are seen to fire there.
import { describe, expect, it } from 'vitest';
import { DEFAULT_GENERATOR_SEED, SWARM_RUNS, generateRuns } from '../../src/tools/swarm/generator.js';
import { executeRun } from '../../src/tools/swarm/execute.js';
import { formatFailure } from '../../src/tools/swarm/report.js';
import { loadRun, reproCommand } from '../../src/tools/swarm/repro.js';
import { runScenario } from '../../src/model/session/run.js';
import type { LinkSummary } from '../../src/model/session/summary.js';
import type { FaultCheck, RunSpec } from '../../src/tools/swarm/spec.js';

const SPECS = generateRuns(DEFAULT_GENERATOR_SEED, 0, SWARM_RUNS);
const MULTI = SPECS.filter((s) => s.clients > 1);
type LinkCheck = Extract<FaultCheck, { direction: unknown }>;
const ownChecks = (s: RunSpec) =>
  s.checks.filter((c): c is LinkCheck => c.fault !== 'giveUp' && c.client !== undefined);

describe('multi-client swarm runs', () => {
  it('are at least 20 % of the swarm, with 2 to 4 clients, at combat rates up to 60/s', () => {
    expect(MULTI.length).toBeGreaterThanOrEqual(0.2 * SWARM_RUNS);
    expect(new Set(MULTI.map((s) => s.clients))).toEqual(new Set([2, 3, 4]));
    for (const spec of MULTI) {
      const where = reproCommand(spec);
      expect(spec.classes, where).toContain('rate <= 60/s');
      expect(spec.sets, where).toContain(`clients=${spec.clients}`);
      const scenario = loadRun(spec);
      expect(scenario.clients, where).toBe(spec.clients);
      // The last client starts (N - 1) x 2 s after the first: the join's allowance covers it.
      expect(spec.joinAllowanceUs, where).toBeGreaterThanOrEqual((6 + 2 * (spec.clients - 1)) * 1e6);
    }
    for (const spec of SPECS.filter((s) => s.clients === 1)) {
      expect(
        spec.sets.some((x) => x.startsWith('clients=') || x.startsWith('link.clients')),
        reproCommand(spec),
      ).toBe(false);
    }
  });

  it('give some client its own link faults (link.clients["k"]), and only that client', () => {
    const own = MULTI.filter((s) => ownChecks(s).length > 0);
    expect(own.length).toBeGreaterThanOrEqual(20);
    for (const spec of own) {
      const scenario = loadRun(spec);
      const k = ownChecks(spec)[0].client as number;
      expect(
        spec.sets.some((x) => x.startsWith(`link.clients.${k}.`)),
        reproCommand(spec),
      ).toBe(true);
      const other = k === 1 ? 2 : 1;
      expect(scenario.clientLinks[k - 1], reproCommand(spec)).not.toEqual(scenario.clientLinks[other - 1]);
    }
  });

  it('a client’s own faults fire on its links (not on the others’ when the shared link has none)', () => {
    const counter: Record<string, (l: LinkSummary) => number> = {
      loss: (l) => l.droppedBy.loss,
      duplicate: (l) => l.duplicated,
      reorder: (l) => l.reordered,
    };
    const sharedKinds: Record<string, RegExp> = {
      loss: /^loss: /,
      duplicate: /^duplicate$/,
      reorder: /^(jitter|reorder: netem)$/,
    };
    // Cheap ones: short runs, and one of each kind of own fault.
    const picked = new Map<string, RunSpec>();
    for (const spec of MULTI) {
      const kind = ownChecks(spec)[0]?.fault;
      if (
        kind !== undefined &&
        !picked.has(kind) &&
        spec.durationUs <= 140e6 &&
        !spec.classes.some((c) => sharedKinds[kind].test(c))
      )
        picked.set(kind, spec);
    }
    expect([...picked.keys()].sort()).toEqual(['duplicate', 'loss', 'reorder']);
    for (const spec of picked.values()) {
      const where = reproCommand(spec);
      const { summary } = runScenario(loadRun(spec), { preset: 'fixed', seed: spec.seed });
      const links = Object.values(summary.links.clients);
      expect(links.length, where).toBe(spec.clients);
      for (const check of ownChecks(spec)) {
        const count = counter[check.fault];
        for (const l of links) {
          if (l.client === check.client)
            expect(count(l[check.direction]), `${where}\n${check.fault} on client ${l.client}`).toBeGreaterThan(0);
          else expect(count(l[check.direction]), `${where}\n${check.fault} on client ${l.client}`).toBe(0);
        }
      }
      const outcome = executeRun(spec);
      expect(outcome.violations, formatFailure(outcome)).toEqual([]);
    }
  }, 60_000);
});
