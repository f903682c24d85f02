// The swarm's run generator (issue 9, item 6): seeded, deterministic, and
// expressed entirely as `bcsim run <base> --mode fixed --seed N --set …`
// arguments, so every generated run is one shell command away.
//
// Every run: the join, an optional lobby, a traffic region (combat, sometimes
// split by a lull), then a quiet tail: either a `lull` that never ends
// (StateUpdates only, no reliable traffic and no keepalives) or a `disconnect`.
// Windowed faults (outages, windowed drop rules) sit inside the part of the
// traffic region that is combat whatever the join's real length is, and end
// before the tail. The checker (invariants.ts) verifies that timing assumption
// on every run instead of trusting it.
import { loadScenario } from '../../src/scenario/load.js';
import type { Scenario } from '../../src/scenario/scenario.js';

/** Generator seed of the committed swarm; BCSIM_SWARM_SEED overrides it. */
export const DEFAULT_GENERATOR_SEED = 9_062_024;
export const SWARM_RUNS = 300;
export const BASE_SCENARIO = 'fragment-ack-bug';

export function generatorSeedFromEnv(): number {
  const raw = process.env.BCSIM_SWARM_SEED;
  if (raw === undefined || raw === '') return DEFAULT_GENERATOR_SEED;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`BCSIM_SWARM_SEED: expected a whole number 0..4294967295, got "${raw}"`);
  return n;
}

export type Direction = 'clientToServer' | 'serverToClient';
export type Block = 'both' | Direction;
export type Peer = 'client' | 'server';
export const DIRECTIONS: readonly Direction[] = ['clientToServer', 'serverToClient'];

/** A configured fault that must be seen to fire (invariant 4). */
export type FaultCheck =
  | { readonly fault: 'loss' | 'duplicate' | 'outage' | 'rule' | 'reorder' | 'bandwidth' | 'slot'; readonly direction: Direction }
  | { readonly fault: 'giveUp'; readonly peer: Peer };

export interface RunSpec {
  readonly generatorSeed: number;
  readonly index: number;
  readonly base: string;
  readonly seed: number;
  /** `--set` overrides, exactly as the CLI takes them (mode, duration, transport, link, traffic). */
  readonly sets: readonly string[];
  readonly checks: readonly FaultCheck[];
  /** Coverage labels (fault classes this run exercises). */
  readonly classes: readonly string[];
  readonly durationUs: number;
  /** Phase 1 (after the join) must have started by this time for the windows and tail to hold. */
  readonly joinAllowanceUs: number;
  /** The quiet tail must last at least this long (from the tail phase's start to the end). */
  readonly tailUs: number;
  /** The tail is a `disconnect` phase (else an endless lull). */
  readonly disconnectTail: boolean;
  /**
   * A graceful disconnect is the only thing meant to end the connection (no
   * outage reaches the peer timeout, no give-up policy): fixed mode must lose nothing.
   */
  readonly expectNoLoss: boolean;
  readonly plantedBug: string | null;
}

export interface GenerateOptions {
  /** Force a planted bug into every run's mode (the harness's self-test). */
  readonly plantedBug?: string;
  /**
   * Extra mode switches for every run (e.g. { closePolicy: 'immediate' } to see what the swarm
   * says about a remedy switched off). They go into the `mode` --set, so commands reproduce them.
   */
  readonly modeOverrides?: Readonly<Record<string, unknown>>;
}

// ---------------------------------------------------------------- PRNG

/** mulberry32: tiny, fast, and good enough to pick test parameters. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), 1 | t);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Number in [lo, hi), rounded to `digits` decimals (short command lines). */
  float(lo: number, hi: number, digits = 3): number {
    const f = 10 ** digits;
    return Math.round((lo + this.next() * (hi - lo)) * f) / f;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  weighted<T extends string>(table: ReadonlyArray<readonly [T, number]>): T {
    const total = table.reduce((s, [, w]) => s + w, 0);
    let x = this.next() * total;
    for (const [value, w] of table) {
      x -= w;
      if (x < 0) return value;
    }
    return table[table.length - 1][0];
  }
}

/** Independent stream per (generator seed, run index): any subset of runs is reproducible alone. */
export function runRng(generatorSeed: number, index: number): Rng {
  let h = Math.imul(generatorSeed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return new Rng(h >>> 0);
}

// ---------------------------------------------------------------- timing model

/** Phase 1 never starts before this on any link: the measured join plus ship selection (6.265 s on a perfect link). */
export const JOIN_MIN_MS = 6_000;
const TICK_MS = 95;

/** Smallest k with P(NegBin failures before `successes` successes <= k) >= q. */
function negBinQuantile(successes: number, p: number, q: number): number {
  if (p <= 0) return 0;
  // pmf(k) = C(k + r - 1, k) (1-p)^r p^k
  let pmf = (1 - p) ** successes;
  let cdf = pmf;
  let k = 0;
  while (cdf < q && k < 500) {
    k++;
    pmf *= ((k + successes - 1) / k) * p;
    cdf += pmf;
  }
  return k;
}

// ---------------------------------------------------------------- the generator

type LinkBlock = Record<string, unknown>;

interface Window {
  startMs: number;
  endMs: number;
}

export function generateRuns(generatorSeed: number, from: number, to: number, options: GenerateOptions = {}): RunSpec[] {
  const runs: RunSpec[] = [];
  for (let i = from; i < to; i++) runs.push(generateRun(generatorSeed, i, options));
  return runs;
}

export function generateRun(generatorSeed: number, index: number, options: GenerateOptions = {}): RunSpec {
  const r = runRng(generatorSeed, index);
  const seed = r.int(1, 999_999);
  const classes = new Set<string>();
  const checks: FaultCheck[] = [];
  const link: Record<Block, LinkBlock> = { both: {}, clientToServer: {}, serverToClient: {} };
  const transport: Record<string, number> = {};
  const mode: Record<string, unknown> = { preset: 'fixed' };
  const directionsOf = (block: Block): Direction[] => (block === 'both' ? [...DIRECTIONS] : [block]);
  const pickBlock = (): Block => r.weighted<Block>([['both', 2], ['clientToServer', 1], ['serverToClient', 1]]);
  const expect = (fault: Exclude<FaultCheck['fault'], 'giveUp'>, block: Block) => {
    for (const direction of directionsOf(block)) checks.push({ fault, direction });
  };

  // -- traffic rate
  const rateClass = r.weighted([
    ['measured', 30],
    ['low', 22],
    ['heavy', 16],
    ['medium', 16],
    ['high', 12],
  ] as const);
  let rate: number | 'measured' | 'heavy';
  let rateValue: number;
  switch (rateClass) {
    case 'measured':
      rate = 'measured';
      rateValue = 4.9;
      break;
    case 'heavy':
      rate = 'heavy';
      rateValue = 60;
      break;
    case 'low':
      rateValue = rate = r.float(1, 20, 1);
      break;
    case 'medium':
      rateValue = rate = r.int(100, 400);
      break;
    case 'high':
      rateValue = rate = r.chance(0.35) ? 2_500 : r.int(500, 2_500);
      break;
  }
  const high = rateValue >= 500;
  // The 2,500/s aliasing probe: a long (but survivable) outage under the full rate, 95% from the client,
  // so that more than half the u16 seq space is outstanding when the link comes back; the first new
  // messages after it then carry seqs more than 32,768 ahead of what the receiver expects (unless a
  // send window holds them back).
  const aliasingProbe = high && r.chance(0.22);
  if (aliasingProbe) rateValue = rate = 2_500;
  classes.add(high ? (rateValue === 2_500 ? 'rate 2500/s' : 'rate 500-2499/s') : rateValue >= 100 ? 'rate 100-400/s' : 'rate <= 60/s');
  const clientShare = aliasingProbe ? 0.95 : high ? r.float(0.1, 0.9, 2) : r.float(0.25, 0.75, 2);
  const arrival = r.chance(0.2) ? 'periodic' : 'poisson';
  // Bytes per second one peer offers at most (StateUpdates ~49/s of ~25 bytes, events ~30 bytes each).
  const offeredBytesPerSecond = 1_500 + rateValue * Math.max(clientShare, 1 - clientShare) * 32;
  if (rateValue > 60) {
    // Enough datagrams per update for the rate to flow (each ~505 bytes, ~10.5 updates/s), 3x headroom.
    transport.datagramsPerUpdate = Math.min(64, Math.ceil((3 * offeredBytesPerSecond) / (505 * (1000 / TICK_MS))));
    if (transport.datagramsPerUpdate > 1) classes.add('datagramsPerUpdate raised');
  }

  // -- what the run is about (decided first: they constrain the rest)
  const disconnectTail = r.chance(0.35);
  const terminal = high ? 'none' : r.weighted([['none', 70], ['long-outage', 12], ['give-up-retry', 10], ['give-up-age', 8]] as const);

  // -- retransmit policy (fixed 2 s unless varied; give-up runs keep it for clean timing)
  let maxIntervalMs = 2_000;
  const retransmit: Record<string, unknown> = {};
  if (terminal === 'none' && !high && r.chance(0.15)) {
    const backoff = r.pick(['linear', 'exponential'] as const);
    const baseMs = r.int(300, 2_000);
    const capMs = r.int(Math.max(baseMs, 2_000), 8_000);
    Object.assign(retransmit, { backoff, baseMs, capMs });
    if (backoff === 'linear') retransmit.stepMs = r.int(100, 1_000);
    maxIntervalMs = capMs;
    classes.add(`backoff ${backoff}`);
  }
  if (aliasingProbe) {
    // Retransmits every 2 s would fill every datagram of every update long before half the seq
    // space is outstanding (64 datagrams x ~18 messages x 22 updates ~ 25,000): the sender
    // throttles itself. Backing off to 8-10 s leaves room for new messages during the outage.
    Object.assign(retransmit, { backoff: 'exponential', baseMs: 2_000, capMs: r.int(8, 10) * 1_000 });
    maxIntervalMs = retransmit.capMs as number;
    transport.datagramsPerUpdate = 64;
    classes.add('backoff exponential');
  }
  if (terminal === 'give-up-retry') {
    retransmit.retryLimit = r.int(1, 4);
    classes.add('give-up: retryLimit');
  }
  if (terminal === 'give-up-age') {
    transport.maxMessageAgeMs = r.int(3, 8) * 1_000;
    classes.add('give-up: maxMessageAgeMs');
  }
  if (Object.keys(retransmit).length > 0) mode.retransmit = retransmit;
  const retryGapMs = maxIntervalMs + 2 * TICK_MS;

  // -- loss (a clean join for the runs whose windows must fit a short traffic region; give-up runs
  // get at most a little Bernoulli loss, so that only their outage can exhaust the retries)
  const cleanJoin = high;
  const giveUp = terminal === 'give-up-retry' || terminal === 'give-up-age';
  const patient = (terminal === 'give-up-retry' && (retransmit.retryLimit as number) >= 3) || (terminal === 'give-up-age' && (transport.maxMessageAgeMs as number) >= 7_000);
  let joinLoss = 0;
  const lossKind = cleanJoin ? 'none' : giveUp ? (patient && r.chance(0.5) ? 'bernoulli' : 'none') : r.weighted([['none', 35], ['bernoulli', 35], ['gilbert-elliott', 30]] as const);
  // Long-outage and give-up runs end the connection: a fault must fire before that, so its rate has a floor.
  const lossFloor = terminal === 'none' ? 0.02 : 0.05;
  // (give-up runs: 2-4 %, their outage comes 25 s into combat, after ~300 datagrams per direction)
  if (lossKind === 'bernoulli') {
    const block = pickBlock();
    const p = giveUp ? r.float(0.02, 0.04) : r.float(lossFloor, r.chance(0.2) ? 0.25 : 0.12);
    link[block].loss = p;
    joinLoss = p;
    expect('loss', block);
    classes.add('loss: Bernoulli');
  } else if (lossKind === 'gilbert-elliott') {
    const block = pickBlock();
    const ge = {
      pGoodToBad: r.float(0.02, 0.08),
      pBadToGood: r.float(0.2, 0.6),
      lossGood: r.chance(0.5) ? 0 : r.float(0.005, 0.02),
      lossBad: r.float(0.5, 1),
    };
    link[block].gilbertElliott = ge;
    const badShare = ge.pGoodToBad / (ge.pGoodToBad + ge.pBadToGood);
    joinLoss = Math.min(0.5, 1.5 * (badShare * ge.lossBad + (1 - badShare) * ge.lossGood));
    expect('loss', block);
    classes.add('loss: Gilbert-Elliott');
  }

  // -- peer timeout (lowered to keep long-outage runs short; not below 15 s on a lossy link, where
  // the join's sparse retransmits, 2 s apart, could otherwise all be lost for a whole timeout)
  let timeoutMs = 45_000;
  const minTimeoutS = lossKind === 'none' ? 8 : 15;
  if (terminal === 'long-outage') timeoutMs = r.int(minTimeoutS, minTimeoutS + 7) * 1_000;
  else if (terminal === 'none' && !aliasingProbe && r.chance(0.2)) timeoutMs = r.int(Math.max(12, minTimeoutS), 25) * 1_000;
  if (timeoutMs !== 45_000) {
    transport.peerTimeoutMs = timeoutMs;
    classes.add('peerTimeoutMs lowered');
  }

  // -- latency, jitter, netem reorder
  // (The aliasing probe keeps the join fast and predictable, so its windows fit 20 s of traffic.)
  let latencyMs = aliasingProbe ? r.int(0, 20) : r.chance(0.2) ? 0 : r.int(5, 100);
  link.both.latencyMs = latencyMs;
  let jitterMs = 0;
  if (!aliasingProbe && r.chance(0.25)) {
    const block = pickBlock();
    jitterMs = r.int(130, 300);
    link[block].jitterMs = jitterMs;
    link[block].jitter = r.pick(['uniform', 'normal', 'exponential']);
    expect('reorder', block);
    classes.add('jitter');
  }
  if (!aliasingProbe && r.chance(0.2)) {
    const block = pickBlock();
    // netem reorder overtakes only datagrams still in flight: the delay must exceed the 95 ms update.
    const lat = r.int(120, 200);
    link[block].latencyMs = lat;
    latencyMs = Math.max(latencyMs, lat);
    link[block].reorder = r.float(0.1, 0.3);
    link[block].reorderGap = r.int(1, 5);
    expect('reorder', block);
    classes.add('reorder: netem');
  }

  // -- duplication, bandwidth, slot
  if (r.chance(0.25)) {
    const block = pickBlock();
    link[block].duplicate = r.float(terminal === 'none' ? 0.02 : 0.05, 0.12);
    if (r.chance(0.6)) link[block].duplicateDelayMs = r.int(1, 60);
    expect('duplicate', block);
    classes.add('duplicate');
  }
  // -- smaller fragments: combat events fragment too. Not below 24 bytes: a StateUpdate (15-25 bytes
  // whole, at most 22 of payload) over the chunk size would be fragmented and so forced reliable,
  // and the quiet tail would no longer be quiet.
  if (!high && r.chance(0.12)) {
    transport.fragmentChunkBytes = r.int(24, 48);
    classes.add('small fragments');
  }

  let bandwidth = false;
  if (!giveUp && !aliasingProbe && r.chance(0.16)) {
    const block = pickBlock();
    const ratio = r.float(1.1, 1.3, 2);
    // Below nearly every combat datagram (~110 bytes): no tokens are left over from one update to the next.
    const burstBytes = r.int(20, 80);
    const queueSeconds = r.float(0.5, 1.5, 1);
    for (const direction of directionsOf(block)) {
      // The bucket refills up to a datagram's own size however small the burst, so a datagram waits
      // only if it is larger than what the cap refills between it and the previous one. The cap is
      // 1.1-1.3x the direction's offered combat load (measured: ~1,000 B/s of StateUpdates, ~30 B per
      // own reliable message, ~6 B per ACK of the other side's): the bucket is busy 75-90 % of the time,
      // so the busier updates wait, yet nothing stays congested. The queue holds ~0.5-1.5 s of traffic:
      // a deep queue under a cap makes the RTT exceed the 2 s retransmit timer, and then retransmits
      // alone exceed the cap (congestion collapse; the transport has no congestion control).
      // With several datagrams per update, every update that fills more than one waits; with one,
      // the cap stays at most 4,000 B/s, so the join's second 412-byte fragment datagram waits too.
      const share = direction === 'clientToServer' ? clientShare : 1 - clientShare;
      // (Small fragments add ~8 header bytes to about half the events.)
      const eventBytes = transport.fragmentChunkBytes === undefined ? 30 : 34;
      const offered = 1_000 + rateValue * share * eventBytes + rateValue * (1 - share) * 6;
      let bytesPerSecond = Math.round(offered * ratio);
      if ((transport.datagramsPerUpdate ?? 1) === 1) bytesPerSecond = Math.min(4_000, bytesPerSecond);
      const queueLimitPackets = Math.max(4, Math.round((bytesPerSecond * queueSeconds) / ((transport.datagramsPerUpdate ?? 1) > 1 ? 400 : 110)));
      Object.assign(link[direction], { bandwidthBytesPerSecond: bytesPerSecond, burstBytes, queueLimitPackets });
    }
    bandwidth = true;
    expect('bandwidth', block);
    classes.add('bandwidth cap');
  }
  let slotMs = 0;
  if (!aliasingProbe && r.chance(0.16)) {
    const block = pickBlock();
    // Not a divisor of the 95 ms update (5, 19, 95): with no jitter every arrival could sit on the grid.
    // Short next to jitter or netem reorder: a coarse grid puts reordered datagrams back in one batch.
    const reorders = checks.some((c) => c.fault === 'reorder');
    do slotMs = r.int(6, reorders ? 40 : 150);
    while (95 % slotMs === 0);
    link[block].slotMs = slotMs;
    expect('slot', block);
    classes.add('slot');
  }

  // -- drop rules (per direction; windowed ones are placed with the outages below)
  const rules: Record<Direction, Array<Record<string, unknown>>> = { clientToServer: [], serverToClient: [] };
  let joinRuleRetries = 0;
  type WindowedRule = { direction: Direction; rule: Record<string, unknown>; lengthMs: number };
  const windowedRules: WindowedRule[] = [];
  const ruleCount = cleanJoin || giveUp ? 0 : r.weighted([['0', 65], ['1', 25], ['2', 10]] as const);
  for (let k = 0; k < Number(ruleCount); k++) {
    const kind = r.weighted([
      ['fragment-ack', 3],
      ['seq-ack', 3],
      ['game-first', 2],
      ['low-first', 1],
      ['ack-window', 2],
      ['game-window', 2],
      ['disconnect', disconnectTail && terminal === 'none' ? 2 : 0],
    ] as const);
    const scope = r.pick(['message', 'datagram'] as const);
    switch (kind) {
      case 'fragment-ack': {
        // The server ACKs the client's 3 join fragments: drop the first N of those ACKs.
        const first = r.int(1, 4);
        const match: Record<string, unknown> = { type: 'ack', fragment: true };
        if (r.chance(0.3)) match.fragIndex = r.int(0, 2);
        rules.serverToClient.push({ scope, match, first });
        joinRuleRetries += first;
        classes.add('drop rule: fragment ACKs');
        break;
      }
      case 'seq-ack': {
        // The first N ACKs of one seq (0..2 exist in both directions and both categories during the join).
        const direction = r.pick(DIRECTIONS);
        const first = r.int(1, 5);
        // Low-type join messages are the connect and one keepalive each way (seqs 0 and 1); high-type ones reach seq 2.
        const lowType = r.chance(0.4) ? r.chance(0.5) : undefined;
        const match: Record<string, unknown> = { type: 'ack', seq: r.int(0, lowType === true ? 1 : 2) };
        if (lowType !== undefined) match.lowType = lowType;
        rules[direction].push({ scope, match, first });
        joinRuleRetries += first;
        classes.add('drop rule: first N ACKs of a seq');
        break;
      }
      case 'game-first': {
        const direction = r.pick(DIRECTIONS);
        const first = r.int(1, 6);
        rules[direction].push({ scope, match: { type: 'game', reliable: true }, first });
        joinRuleRetries += first;
        classes.add('drop rule: first N game messages');
        break;
      }
      case 'low-first': {
        const direction = r.pick(DIRECTIONS);
        const first = r.int(1, 3);
        rules[direction].push({ scope: 'message', match: { lowType: true, reliable: true }, first });
        joinRuleRetries += first;
        classes.add('drop rule: first N low-type messages');
        break;
      }
      case 'ack-window': {
        // ACKs of the other side's combat traffic, dropped with probability p for a window.
        const direction = r.pick(DIRECTIONS);
        const senderShare = direction === 'serverToClient' ? clientShare : 1 - clientShare;
        const probability = r.float(0.2, 0.6, 2);
        // At least ~12 expected drops (ACKs go out within an update of the message).
        const perSecond = Math.min(rateValue * senderShare, 1000 / TICK_MS);
        const lengthMs = Math.min(20_000, Math.max(4_000, Math.ceil((12 / (perSecond * probability)) * 1000)));
        windowedRules.push({ direction, rule: { scope: 'datagram', match: { type: 'ack' }, probability }, lengthMs });
        classes.add('drop rule: ACK datagrams in a window');
        break;
      }
      case 'game-window': {
        const direction = r.pick(DIRECTIONS);
        const senderShare = direction === 'clientToServer' ? clientShare : 1 - clientShare;
        const probability = r.float(0.1, 0.5, 2);
        const lengthMs = Math.min(20_000, Math.max(3_000, Math.ceil((12 / (rateValue * senderShare * probability)) * 1000)));
        windowedRules.push({ direction, rule: { scope: 'message', match: { type: 'game', reliable: true }, probability }, lengthMs });
        classes.add('drop rule: game messages in a window');
        break;
      }
      case 'disconnect': {
        rules.clientToServer.push({ scope, match: { type: 'disconnect' }, first: r.int(1, 2) });
        classes.add('drop rule: the Disconnect');
        break;
      }
    }
  }

  // -- the join's allowance: perfect-link time, per-message delays, and retries at the 99.99th percentile
  const perLegMs = latencyMs + jitterMs + slotMs + (bandwidth ? 150 : 0);
  const joinRetries = negBinQuantile(12, joinLoss, 0.9999) + joinRuleRetries;
  const joinAllowanceMs = Math.ceil((JOIN_MIN_MS + 500 + 24 * perLegMs + joinRetries * retryGapMs) / 1000) * 1000;
  const joinSlackMs = joinAllowanceMs - JOIN_MIN_MS;

  // -- outages (windows inside the guaranteed combat, each one a fault that must fire)
  type Outage = { block: Block; lengthMs: number; offsetMs: number };
  const outages: Outage[] = [];
  if (terminal === 'long-outage') {
    outages.push({ block: pickBlock(), lengthMs: timeoutMs + r.int(3, 8) * 1_000, offsetMs: 25_000 });
    classes.add('outage > peer timeout');
  } else if (terminal === 'give-up-retry') {
    const limit = retransmit.retryLimit as number;
    outages.push({ block: pickBlock(), lengthMs: Math.ceil(((limit + 1) * retryGapMs) / 1000) * 1000 + r.int(2, 4) * 1_000, offsetMs: 25_000 });
  } else if (terminal === 'give-up-age') {
    outages.push({ block: pickBlock(), lengthMs: (transport.maxMessageAgeMs as number) + retryGapMs + r.int(2, 3) * 1_000, offsetMs: 25_000 });
  } else if (aliasingProbe) {
    // 2,375/s from the client for 15 s: ~35,600 seqs outstanding, more than half the u16 space.
    outages.push({ block: 'both', lengthMs: 15_000, offsetMs: 0 });
    classes.add('aliasing probe (long outage at 2,500/s)');
  } else if (r.chance(0.25)) {
    const count = r.int(1, 2);
    for (let k = 0; k < count; k++) {
      const maxShort = Math.min(high ? 6_000 : 20_000, Math.floor(0.6 * timeoutMs), timeoutMs - 6_000);
      outages.push({ block: pickBlock(), lengthMs: r.int(1, Math.floor(maxShort / 1000)) * 1_000, offsetMs: r.int(0, 3) * 1_000 });
    }
  }
  if (outages.length > 0 && terminal !== 'long-outage') classes.add('outage < peer timeout');

  // -- traffic region: long enough to hold every window after the join's slack
  const windowsMs = outages.reduce((s, o) => s + o.offsetMs + o.lengthMs + 1_000, 0) + windowedRules.reduce((s, w) => s + w.lengthMs + 1_000, 0);
  // (The aliasing probe keeps sending for 3 s after its outage: new seqs must meet the backlog.)
  const minRegionMs = joinSlackMs + windowsMs + (aliasingProbe ? 3_000 : 2_000);
  let regionMs = high ? r.int(5, 15) * 1_000 : r.int(20, 60) * 1_000;
  regionMs = Math.max(regionMs, Math.ceil(minRegionMs / 1000) * 1000);
  const lobbyMs = r.chance(0.35) ? r.int(3, 15) * 1_000 : 0;
  const lobbyChat = lobbyMs > 0 ? r.int(0, 30) : 0;
  const regionStartLatestMs = joinAllowanceMs + lobbyMs;
  const regionStartEarliestMs = JOIN_MIN_MS + lobbyMs;
  const regionEndEarliestMs = regionStartEarliestMs + regionMs;

  // Place windows one after another from the latest region start: windowed rules first, so
  // they fire before an outage that may end the connection (long outage, give-up).
  let cursorMs = regionStartLatestMs + 1_000;
  for (const w of windowedRules) {
    rules[w.direction].push({ ...w.rule, from: `${cursorMs / 1000}s`, until: `${(cursorMs + w.lengthMs) / 1000}s` });
    cursorMs += w.lengthMs + 1_000;
  }
  const outageWindows: Record<Block, Window[]> = { both: [], clientToServer: [], serverToClient: [] };
  for (const o of outages) {
    const startMs = cursorMs + o.offsetMs;
    const w = { startMs, endMs: startMs + o.lengthMs };
    outageWindows[o.block].push(w);
    cursorMs = w.endMs + 1_000;
  }
  if (cursorMs > regionEndEarliestMs) throw new Error(`generator: windows end at ${cursorMs} ms, after the earliest traffic stop ${regionEndEarliestMs} ms (run ${index})`);
  // A direction's `outages` replaces both's: a direction with its own windows lists both's too.
  const both = outageWindows.both;
  for (const d of DIRECTIONS) {
    if (outageWindows[d].length > 0) {
      link[d].outages = [...both, ...outageWindows[d]].sort((a, b) => a.startMs - b.startMs).map(outageJson);
      expect('outage', d);
    } else if (both.length > 0) {
      expect('outage', d);
    }
  }
  if (both.length > 0) link.both.outages = both.map(outageJson);
  if (terminal === 'give-up-retry' || terminal === 'give-up-age') {
    // The senders whose messages (or whose ACKs) the outage cuts: both peers send combat traffic.
    checks.push({ fault: 'giveUp', peer: 'client' }, { fault: 'giveUp', peer: 'server' });
  }
  for (const d of DIRECTIONS) {
    if (rules[d].length > 0) {
      link[d].drop = rules[d];
      checks.push({ fault: 'rule', direction: d });
    }
  }

  // -- phases
  const phases: unknown[] = ['join'];
  if (lobbyMs > 0) phases.push({ kind: 'lobby', duration: `${lobbyMs / 1000}s`, chatPerMinute: lobbyChat });
  const combat = (ms: number) => ({
    kind: 'combat',
    duration: `${ms / 1000}s`,
    reliablePerSecond: rate,
    clientShare,
    arrival,
  });
  // Traffic region: one combat, or (without windows) two combats around a lull of the same total length.
  const splitRegion = !high && outages.length === 0 && windowedRules.length === 0 && regionMs >= 12_000 && r.chance(0.2);
  if (splitRegion) {
    const lullMs = r.int(2, 8) * 1_000;
    const firstMs = Math.round((regionMs - lullMs) / 2 / 1000) * 1000;
    phases.push(combat(firstMs), { kind: 'lull', duration: `${lullMs / 1000}s` }, combat(regionMs - lullMs - firstMs));
    classes.add('combat split by a lull');
  } else {
    phases.push(combat(regionMs));
  }
  if (lobbyMs > 0) classes.add('lobby before combat');
  // The tail phase starts, at the latest, when the region ends (plus a quiet lull before a disconnect).
  let tailStartLatestMs = regionStartLatestMs + regionMs;
  if (disconnectTail) {
    if (r.chance(0.3)) {
      const quietMs = r.int(2, 8) * 1_000;
      phases.push({ kind: 'lull', duration: `${quietMs / 1000}s` });
      tailStartLatestMs += quietMs;
      classes.add('disconnect after a quiet lull');
    } else {
      classes.add('disconnect right after combat');
    }
    phases.push('disconnect');
  } else {
    // StateUpdates keep both peers sending (so no keepalives: no reliable traffic at all), at a
    // lower rate than combat's 49/s to keep the tail cheap to simulate.
    phases.push({ kind: 'lull', stateUpdatesPerSecond: 10 });
    classes.add('tail: endless lull');
  }

  // -- the quiet tail: several retransmit rounds at the longest interval, or the drain to complete
  const tailMs = 25_000 + 5 * maxIntervalMs + (high ? 10_000 : 0) + (bandwidth ? 5_000 : 0) + jitterMs * 10;
  const durationMs = Math.ceil((tailStartLatestMs + tailMs) / 1000) * 1000;

  if (options.modeOverrides !== undefined) Object.assign(mode, options.modeOverrides);
  if (options.plantedBug !== undefined) mode.plantedBug = options.plantedBug;

  const sets: string[] = [`mode=${JSON.stringify(mode)}`, `duration=${durationMs / 1000}s`];
  for (const [key, value] of Object.entries(transport)) sets.push(`transport.${key}=${value}`);
  for (const block of ['both', 'clientToServer', 'serverToClient'] as const) {
    for (const [key, value] of Object.entries(link[block])) sets.push(`link.${block}.${key}=${JSON.stringify(value)}`);
  }
  sets.push(`traffic.phases=${JSON.stringify(phases)}`);
  if (disconnectTail) classes.add('disconnect phase');
  if (checks.length === 0 && !disconnectTail) classes.add('no link fault');

  return {
    generatorSeed,
    index,
    base: BASE_SCENARIO,
    seed,
    sets,
    checks: dedupeChecks(checks),
    classes: [...classes].sort(),
    durationUs: durationMs * 1000,
    joinAllowanceUs: joinAllowanceMs * 1000,
    tailUs: tailMs * 1000,
    disconnectTail,
    expectNoLoss: disconnectTail && terminal === 'none',
    plantedBug: options.plantedBug ?? null,
  };
}

function dedupeChecks(checks: readonly FaultCheck[]): FaultCheck[] {
  const seen = new Set<string>();
  return checks.filter((c) => {
    const key = c.fault === 'giveUp' ? `giveUp:${c.peer}` : `${c.fault}:${c.direction}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function outageJson(w: Window): { start: string; end: string } {
  return { start: `${w.startMs / 1000}s`, end: `${w.endMs / 1000}s` };
}

// ---------------------------------------------------------------- commands

/** Quotes one shell word with single quotes (a ' inside becomes '\''). */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The one-line command that reproduces a run exactly. */
export function reproCommand(spec: Pick<RunSpec, 'base' | 'seed' | 'sets'>): string {
  return ['bcsim run', spec.base, '--mode fixed', `--seed ${spec.seed}`, ...spec.sets.map((s) => `--set ${shellQuote(s)}`), '--json'].join(' ');
}

/** Splits a command line the way a POSIX shell does for the quoting reproCommand uses. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote at ${i}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

export interface ParsedCommand {
  readonly base: string;
  readonly preset: string;
  readonly seed: number;
  readonly sets: string[];
}

/** Parses a `bcsim run <base> --mode M --seed N --set … --json` line back into its parts. */
export function parseReproCommand(line: string): ParsedCommand {
  const words = shellWords(line);
  if (words[0] !== 'bcsim' || words[1] !== 'run') throw new Error(`not a bcsim run command: ${line}`);
  const base = words[2];
  let preset = 'stock';
  let seed = Number.NaN;
  const sets: string[] = [];
  for (let i = 3; i < words.length; i++) {
    const w = words[i];
    if (w === '--mode') preset = words[++i];
    else if (w === '--seed') seed = Number(words[++i]);
    else if (w === '--set') sets.push(words[++i]);
    else if (w !== '--json') throw new Error(`unexpected word "${w}" in ${line}`);
  }
  return { base, preset, seed, sets };
}

/** Loads a run exactly as `bcsim run` would. */
export function loadRun(spec: Pick<RunSpec, 'base' | 'sets'>): Scenario {
  return loadScenario(spec.base, { sets: [...spec.sets] });
}
