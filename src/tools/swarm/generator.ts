// The swarm's run generator: seeded, deterministic, and
// expressed entirely as `bcsim run <base> --mode fixed --seed N --set …`
// arguments, so every generated run is one shell command away (repro.ts).
//
// Every run: the join, an optional lobby, a traffic region (combat, sometimes
// split by a lull), then a quiet tail: either a `lull` that never ends
// (StateUpdates only, no reliable traffic and no keepalives) or a `disconnect`.
// Windowed faults (outages, windowed drop rules) sit inside the part of the
// traffic region that is combat whatever the join's real length is, and end
// before the tail. The checker (invariants.ts) verifies that timing assumption
// on every run instead of trusting it.
//
// generateRun calls the parts in a fixed order: they all draw from one stream, and
// the order of the draws (and of the settings they write) is what makes a run. The client
// count and a client's own link faults come from a second stream (clients.ts), so that
// one-client runs are exactly what they were before multi-player runs.
import { ceilToSecondMs, msToSeconds, msToUsUnrounded } from '../../core/engine/index.js';
import { dedupeChecks, newDraft } from './draft.js';
import type { Draft } from './draft.js';
import { applyDropRules, drawDropRules } from './drop-rules.js';
import { drawPeerTimeout, drawRetransmitPolicy, drawTerminal, expectGiveUp, givesUp, isPatient } from './give-up.js';
import { clientRng, clientSets, drawClientCount, drawOwnFaults, staggerMs } from './clients.js';
import type { OwnFaults } from './clients.js';
import { drawBandwidth, drawDelay, drawDuplication, drawLoss, drawSlot, faultRateFloor } from './link-faults.js';
import { runRng } from './rng.js';
import type { GenerateOptions, RunSpec } from './spec.js';
import { joinAllowanceMs, joinMinMs } from './timing.js';
import { drawFragmentChunk, drawPhases, drawRate, drawRegion, quietTailMs } from './traffic.js';
import { drawOutages, placeWindows, windowsSpanMs } from './windows.js';

/** Generator seed of the committed swarm (test/swarm; BCSIM_SWARM_SEED overrides it there) and of `bcsim swarm`. */
export const DEFAULT_GENERATOR_SEED = 9_062_024;
export const SWARM_RUNS = 300;
export const BASE_SCENARIO = 'fragment-ack-bug';

export function generateRuns(
  generatorSeed: number,
  from: number,
  to: number,
  options: GenerateOptions = {},
): RunSpec[] {
  const runs: RunSpec[] = [];
  for (let i = from; i < to; i++) runs.push(generateRun(generatorSeed, i, options));
  return runs;
}

export function generateRun(generatorSeed: number, index: number, options: GenerateOptions = {}): RunSpec {
  const r = runRng(generatorSeed, index);
  const c = clientRng(generatorSeed, index);
  const seed = r.int(1, 999_999);
  const d = newDraft(r);

  const rate = drawRate(d, drawClientCount(c));
  const { clients } = rate;
  const { high, aliasingProbe } = rate;
  // What the run is about, decided first: it constrains the rest.
  const disconnectTail = r.chance(0.35);
  const terminal = drawTerminal(r, high);
  const policy = drawRetransmitPolicy(d, terminal, high, aliasingProbe);
  const giveUp = givesUp(terminal);

  // Link faults. A high-rate run keeps a clean join, so that its windows fit a short traffic region.
  // (The bandwidth cap reads the fragment size; the slot grid reads whether anything reorders.)
  const floor = faultRateFloor(terminal !== 'none');
  const loss = drawLoss(d, { cleanJoin: high, giveUp, patient: isPatient(terminal, policy), floor });
  const own = drawOwnFaults(d, c, { clients, lossAllowed: !giveUp, floor });
  let timeoutMs = drawPeerTimeout(d, terminal, loss.kind !== 'none' || (own?.joinLoss ?? 0) > 0, aliasingProbe);
  const delay = drawDelay(d, aliasingProbe);
  const jitterMs = Math.max(delay.jitterMs, own?.jitterMs ?? 0);
  drawDuplication(d, floor);
  drawFragmentChunk(d, high);
  const bandwidth = drawBandwidth(d, rate, !giveUp && !aliasingProbe);
  const slotMs = drawSlot(d, !aliasingProbe);
  const drops = drawDropRules(d, { none: high || giveUp, disconnect: disconnectTail && terminal === 'none', rate });

  // Timing: the join's allowance, then windows and traffic placed after it.
  const joinMs = joinAllowanceMs({
    perLegMs: delay.latencyMs + jitterMs + slotMs + (bandwidth ? 150 : 0),
    joinLoss: Math.max(loss.joinLoss, own?.joinLoss ?? 0),
    joinRuleRetries: drops.joinRuleRetries,
    retryGapMs: policy.retryGapMs,
    staggerMs: staggerMs(clients),
  });
  if (timeoutMs < joinMs) {
    // The join must not outlast the peer timeout: a message of the join lives that long (its
    // lifetime), and the drop rules' retries or an early joiner's idling (keepalives every 5 s
    // only, until the last client is in) can keep one unanswered nearly the whole allowance.
    timeoutMs = d.transport.peerTimeoutMs = joinMs;
  }
  const outages = drawOutages(d, { terminal, policy, timeoutMs, aliasingProbe, high });
  const region = drawRegion(d, {
    rate,
    joinAllowanceMs: joinMs,
    windowsMs: windowsSpanMs(outages, drops.windowed),
    joinMinMs: joinMinMs(staggerMs(clients)),
  });
  placeWindows(d, drops.rules, drops.windowed, outages, {
    startLatestMs: region.startLatestMs,
    endEarliestMs: region.endEarliestMs,
    index,
  });
  if (giveUp) expectGiveUp(d);
  applyDropRules(d, drops.rules);

  const windowless = outages.length === 0 && drops.windowed.length === 0;
  const { phases, tailStartLatestMs } = drawPhases(d, { rate, region, windowless, disconnectTail });
  const tailMs = quietTailMs({
    maxIntervalMs: policy.maxIntervalMs,
    high,
    bandwidth,
    jitterMs,
    drainDeadlineMs: disconnectTail ? timeoutMs : 0,
  });
  const durationMs = ceilToSecondMs(tailStartLatestMs + tailMs);

  if (options.preset !== undefined) d.mode.preset = options.preset;
  if (options.modeOverrides !== undefined) Object.assign(d.mode, options.modeOverrides);
  if (options.plantedBug !== undefined) d.mode.plantedBug = options.plantedBug;
  if (disconnectTail) d.classes.add('disconnect phase');
  if (d.checks.length === 0 && !disconnectTail) d.classes.add('no link fault');
  if (clients > 1) d.classes.add(`clients: ${clients}`);

  return {
    preset: options.preset ?? 'fixed',
    generatorSeed,
    index,
    base: BASE_SCENARIO,
    seed,
    clients,
    sets: renderSets(d, durationMs, phases, clients, own),
    checks: dedupeChecks(d.checks),
    classes: [...d.classes].sort(),
    durationUs: msToUsUnrounded(durationMs),
    joinAllowanceUs: msToUsUnrounded(joinMs),
    tailUs: msToUsUnrounded(tailMs),
    disconnectTail,
    plantedBug: options.plantedBug ?? null,
  };
}

/** The draft as `--set` overrides: mode, duration, transport, link blocks, then the phases. */
function renderSets(d: Draft, durationMs: number, phases: unknown[], clients: number, own: OwnFaults | null): string[] {
  const sets: string[] = [
    `mode=${JSON.stringify(d.mode)}`,
    `duration=${msToSeconds(durationMs)}s`,
    ...clientSets(clients, own),
  ];
  for (const [key, value] of Object.entries(d.transport)) sets.push(`transport.${key}=${value}`);
  for (const block of ['both', 'clientToServer', 'serverToClient'] as const) {
    for (const [key, value] of Object.entries(d.link[block]))
      sets.push(`link.${block}.${key}=${JSON.stringify(value)}`);
  }
  sets.push(`traffic.phases=${JSON.stringify(phases)}`);
  return sets;
}
