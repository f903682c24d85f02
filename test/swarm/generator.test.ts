// The swarm's generator: deterministic, loadable, every run ends with a quiet
// tail, a minimum count of every fault class, and commands that reproduce a run through the real CLI.
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { DEFAULT_GENERATOR_SEED, SWARM_RUNS, generateRun, generateRuns } from '../../src/tools/swarm/generator.js';
import { loadRun, parseReproCommand, reproCommand, shellQuote, shellWords } from '../../src/tools/swarm/repro.js';
import { executeRun } from '../../src/tools/swarm/execute.js';

const SPECS = generateRuns(DEFAULT_GENERATOR_SEED, 0, SWARM_RUNS);

/** How many of the 300 runs exercise each fault class, at least. */
const MIN_COVERAGE: Record<string, number> = {
  'loss: Bernoulli': 40,
  'loss: Gilbert-Elliott': 40,
  duplicate: 40,
  'reorder: netem': 30,
  jitter: 40,
  'bandwidth cap': 25,
  slot: 25,
  'outage < peer timeout': 50,
  'outage > peer timeout': 15,
  'drop rule: fragment ACKs': 10,
  'drop rule: first N ACKs of a seq': 10,
  'drop rule: first N game messages': 5,
  'drop rule: ACK datagrams in a window': 5,
  'drop rule: game messages in a window': 5,
  'drop rule: the Disconnect': 3,
  'disconnect phase': 60,
  'give-up: retryLimit': 15,
  'give-up: maxMessageAgeMs': 10,
  'peerTimeoutMs lowered': 30,
  'rate 2500/s': 15,
  'rate 500-2499/s': 10,
  'aliasing probe (long outage at 2,500/s)': 5,
  'datagramsPerUpdate raised': 60,
  'small fragments': 15,
  'backoff exponential': 10,
  'backoff linear': 5,
};

describe('swarm generator', () => {
  it('is deterministic, and each run depends only on (generator seed, index)', () => {
    expect(generateRuns(DEFAULT_GENERATOR_SEED, 0, SWARM_RUNS)).toEqual(SPECS);
    expect(generateRuns(DEFAULT_GENERATOR_SEED, 40, 60)[7]).toEqual(generateRun(DEFAULT_GENERATOR_SEED, 47));
    expect(generateRun(DEFAULT_GENERATOR_SEED + 1, 47)).not.toEqual(generateRun(DEFAULT_GENERATOR_SEED, 47));
    expect(new Set(SPECS.map((s) => reproCommand(s))).size).toBe(SWARM_RUNS);
  });

  it('covers every fault class at least MIN_COVERAGE times', () => {
    const counts = new Map<string, number>();
    for (const spec of SPECS) for (const c of spec.classes) counts.set(c, (counts.get(c) ?? 0) + 1);
    const table = [...counts].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${String(n).padStart(4)}  ${c}`);
    const seconds = SPECS.map((s) => s.durationUs / 1e6).sort((a, b) => a - b);
    console.log(
      `swarm coverage (generator seed ${DEFAULT_GENERATOR_SEED}, ${SWARM_RUNS} runs; simulated seconds min ${seconds[0]}, median ${seconds[SWARM_RUNS >> 1]}, max ${seconds[SWARM_RUNS - 1]}; ${seconds.filter((s) => s >= 30 && s <= 120).length} runs in 30-120 s):\n${table.join('\n')}`,
    );
    const short = Object.entries(MIN_COVERAGE).filter(([c, min]) => (counts.get(c) ?? 0) < min);
    expect(short.map(([c, min]) => `${c}: ${counts.get(c) ?? 0} < ${min}`)).toEqual([]);
    // Both drop-rule scopes.
    expect(SPECS.some((s) => s.sets.some((x) => x.includes('"scope":"message"')))).toBe(true);
    expect(SPECS.some((s) => s.sets.some((x) => x.includes('"scope":"datagram"')))).toBe(true);
    // Reliable rates up to 2,500/s, with the 2,500/s runs short.
    for (const spec of SPECS.filter((s) => s.classes.includes('rate 2500/s'))) {
      const phases = loadRun(spec).traffic.phases;
      const combatUs = phases.reduce((sum, p) => sum + (p.kind === 'combat' ? (p.durationUs as number) : 0), 0);
      expect(combatUs, reproCommand(spec)).toBeLessThanOrEqual(20_000_000);
    }
  });

  it('every run loads as the CLI would and ends with a quiet tail after all windows', () => {
    for (const spec of SPECS) {
      const scenario = loadRun(spec);
      const where = reproCommand(spec);
      expect(scenario.preset, where).toBe('fixed');
      expect(scenario.durationUs, where).toBe(spec.durationUs);
      const phases = scenario.traffic.phases;
      const last = phases[phases.length - 1];
      expect(phases[0].kind, where).toBe('join');
      // The tail: StateUpdates only, forever; or a disconnect after which nothing is sent.
      if (spec.disconnectTail) expect(last.kind, where).toBe('disconnect');
      else expect(last, where).toMatchObject({ kind: 'lull', durationUs: null });
      for (const p of phases.slice(0, -1)) if ('durationUs' in p) expect(p.durationUs, where).not.toBeNull();
      expect(scenario.traffic.repeatFrom, where).toBeNull();
      // Windows (outages, windowed drop rules) end before the tail can start, and start after the join.
      const tailStartUs = spec.durationUs - spec.tailUs;
      for (const link of [scenario.link.clientToServer, scenario.link.serverToClient]) {
        for (const o of link.outages) {
          expect(o.endMs * 1000, where).toBeLessThanOrEqual(tailStartUs);
          expect(o.startMs * 1000, where).toBeGreaterThan(spec.joinAllowanceUs);
        }
        for (const rule of link.dropRules) {
          if (rule.untilMs !== null) expect(rule.untilMs * 1000, where).toBeLessThanOrEqual(tailStartUs);
          else expect(rule.firstN, where).not.toBeNull(); // an unbounded rule would never let the link heal
        }
      }
      expect(spec.tailUs, where).toBeGreaterThanOrEqual(25_000_000);
    }
  });

  it('promises only what can happen, over many generator seeds', () => {
    const many = [1, 2, 3, 7, 11, 42, 777, 1234, 4242, DEFAULT_GENERATOR_SEED].flatMap((g) => generateRuns(g, 0, 300));
    let lowAckRules = 0;
    let spans = 0;
    for (const spec of many) {
      const scenario = loadRun(spec);
      const where = reproCommand(spec);
      const timeoutUs = scenario.params.peerTimeoutMs * 1000;
      // The server answers the client's Connect (low seq 0) with its connect reply, never with an ACK:
      // a rule on the server's low-type ACKs names the keepalive's seq 1, which every join ACKs.
      for (const rule of scenario.link.serverToClient.dropRules) {
        if (rule.match.type === 'ack' && rule.match.lowType === true) {
          lowAckRules++;
          expect(rule.match.seq, where).toBe(1);
        }
      }
      // A join message lives one peer timeout: the join's allowance fits in it.
      expect(timeoutUs, where).toBeGreaterThanOrEqual(spec.joinAllowanceUs);
      // The outages of a run that is not meant to end span (gaps included) what a message outlives.
      const ends = spec.classes.some(
        (c) => c === 'outage > peer timeout' || c.startsWith('give-up') || c.startsWith('aliasing probe'),
      );
      const outages = [...scenario.link.clientToServer.outages, ...scenario.link.serverToClient.outages];
      if (!ends && outages.length > 0) {
        spans++;
        const spanMs = Math.max(...outages.map((o) => o.endMs)) - Math.min(...outages.map((o) => o.startMs));
        expect(spanMs, where).toBeLessThanOrEqual(
          Math.min(0.6 * scenario.params.peerTimeoutMs, scenario.params.peerTimeoutMs - 6_000),
        );
      }
      // A drain the link starves ends at its deadline (the peer timeout), inside the run.
      if (spec.disconnectTail) expect(spec.tailUs, where).toBeGreaterThan(timeoutUs);
    }
    expect(lowAckRules).toBeGreaterThan(5);
    expect(spans).toBeGreaterThan(300);
  });

  it('forces a planted bug (or other switches) into the mode --set', () => {
    const spec = generateRun(DEFAULT_GENERATOR_SEED, 3, { plantedBug: 'no-duplicate-ack' });
    expect(spec.sets[0]).toMatch(/^mode=\{"preset":"fixed".*"plantedBug":"no-duplicate-ack"\}$/);
    expect(loadRun(spec).switchOverrides.plantedBug).toBe('no-duplicate-ack');
    const other = generateRun(DEFAULT_GENERATOR_SEED, 3, { modeOverrides: { closePolicy: 'immediate' } });
    expect(loadRun(other).switchOverrides.closePolicy).toBe('immediate');
    // The rest of the run is unchanged.
    expect(spec.sets.slice(1)).toEqual(generateRun(DEFAULT_GENERATOR_SEED, 3).sets.slice(1));
  });

  it('prints commands a shell splits back into the same arguments', () => {
    for (const spec of SPECS.slice(0, 50)) {
      const parsed = parseReproCommand(reproCommand(spec));
      expect(parsed).toEqual({ base: spec.base, preset: 'fixed', seed: spec.seed, sets: [...spec.sets] });
    }
    const tricky = {
      base: 'fragment-ack-bug',
      preset: 'fixed' as const,
      seed: 7,
      sets: [`description=it's "quoted"`, 'link.both.loss=0.1'],
    };
    expect(shellQuote(`it's`)).toBe(`'it'\\''s'`);
    expect(parseReproCommand(reproCommand(tricky)).sets).toEqual(tricky.sets);
    expect(shellWords(`a 'b c' d\\ e`)).toEqual(['a', 'b c', 'd e']);
  });

  it('the printed command, run by the real CLI, gives the very same run', async () => {
    const cheap = SPECS.filter((s) => s.classes.includes('rate <= 60/s') && s.checks.length >= 3).slice(0, 2);
    expect(cheap).toHaveLength(2);
    for (const spec of cheap) {
      const words = shellWords(reproCommand(spec));
      expect(words.slice(0, 2)).toEqual(['bcsim', 'run']);
      const r = await cli(words.slice(1));
      expect(r.code, r.stderr).toBe(0);
      const summary = JSON.parse(r.stdout) as { traceHash: string; seed: number; delivery: unknown };
      const outcome = executeRun(spec);
      expect(summary.seed).toBe(spec.seed);
      expect(summary.traceHash).toBe(outcome.traceHash);
    }
  }, 60_000);
});
