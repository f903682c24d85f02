// Windowed faults: outages and windowed drop rules. They are placed one after another inside the
// part of the traffic region that is combat whatever the join's real length is (from the join's
// allowance on), and must end before the earliest end of that region.
import { ceilToSecondMs, msToSeconds, secondsToMs } from '../../core/engine/index.js';
import type { Draft } from './draft.js';
import { expectFault, pickBlock } from './draft.js';
import type { Rule, WindowedRule } from './drop-rules.js';
import type { RetransmitPolicy, Terminal } from './give-up.js';
import { DIRECTIONS } from './spec.js';
import type { Block, Direction } from './spec.js';

/** placeWindows' gap after every window. */
const WINDOW_GAP_MS = 1_000;
/** The most an outage's offsetMs adds to that gap. */
const MAX_OUTAGE_OFFSET_MS = 3_000;

/** An outage to place: `offsetMs` after the previous window, for `lengthMs`. */
export interface Outage {
  readonly block: Block;
  readonly lengthMs: number;
  readonly offsetMs: number;
}

interface Window {
  startMs: number;
  endMs: number;
}

export interface OutageInputs {
  readonly terminal: Terminal;
  readonly policy: RetransmitPolicy;
  readonly timeoutMs: number;
  readonly aliasingProbe: boolean;
  readonly high: boolean;
}

/** The run's outages, each one a fault that must fire. A terminal run has exactly the one that ends it. */
export function drawOutages(d: Draft, o: OutageInputs): Outage[] {
  const { r, classes } = d;
  const { retryGapMs } = o.policy;
  const outages: Outage[] = [];
  if (o.terminal === 'long-outage') {
    outages.push({ block: pickBlock(r), lengthMs: o.timeoutMs + secondsToMs(r.int(3, 8)), offsetMs: 25_000 });
    classes.add('outage > peer timeout');
  } else if (o.terminal === 'give-up-retry') {
    const limit = o.policy.retryLimit as number;
    outages.push({
      block: pickBlock(r),
      lengthMs: ceilToSecondMs((limit + 1) * retryGapMs) + secondsToMs(r.int(2, 4)),
      offsetMs: 25_000,
    });
  } else if (o.terminal === 'give-up-age') {
    outages.push({
      block: pickBlock(r),
      lengthMs: (o.policy.maxMessageAgeMs as number) + retryGapMs + secondsToMs(r.int(2, 3)),
      offsetMs: 25_000,
    });
  } else if (o.aliasingProbe) {
    // 2,375/s from the client for 15 s: ~35,600 seqs outstanding, more than half the u16 space.
    outages.push({ block: 'both', lengthMs: 15_000, offsetMs: 0 });
    classes.add('aliasing probe (long outage at 2,500/s)');
  } else if (r.chance(0.25)) {
    const count = r.int(1, 2);
    // One message (or its ACKs) can be cut off by every outage of the run, whatever their
    // directions: all of them, with the gaps between, span at most what a message outlives
    // (it lives one peer timeout) with 6 s and 40 % of that timeout left to get through.
    let spanLeftMs = Math.min(o.high ? 6_000 : 20_000, Math.floor(0.6 * o.timeoutMs), o.timeoutMs - 6_000);
    for (let k = 0; k < count && spanLeftMs >= secondsToMs(1); k++) {
      const outage = {
        block: pickBlock(r),
        lengthMs: secondsToMs(r.int(1, Math.floor(msToSeconds(spanLeftMs)))),
        offsetMs: secondsToMs(r.int(0, msToSeconds(MAX_OUTAGE_OFFSET_MS))),
      };
      outages.push(outage);
      // placeWindows leaves 1 s plus the next outage's offset (at most 3 s) between two outages.
      spanLeftMs -= outage.lengthMs + WINDOW_GAP_MS + MAX_OUTAGE_OFFSET_MS;
    }
  }
  if (outages.length > 0 && o.terminal !== 'long-outage') classes.add('outage < peer timeout');
  return outages;
}

/** The combat time all windows need, each followed by a second's gap. */
export function windowsSpanMs(outages: readonly Outage[], windowed: readonly WindowedRule[]): number {
  return (
    outages.reduce((s, o) => s + o.offsetMs + o.lengthMs + WINDOW_GAP_MS, 0) +
    windowed.reduce((s, w) => s + w.lengthMs + WINDOW_GAP_MS, 0)
  );
}

export interface Placement {
  /** Combat has begun by then whatever the join's length. */
  readonly startLatestMs: number;
  /** Combat lasts at least until then. */
  readonly endEarliestMs: number;
  /** For the error message. */
  readonly index: number;
}

/**
 * Places the windows one after another from the latest region start: windowed rules first (into
 * `rules`), so they fire before an outage that may end the connection (long outage, give-up).
 */
export function placeWindows(
  d: Draft,
  rules: Record<Direction, Rule[]>,
  windowed: readonly WindowedRule[],
  outages: readonly Outage[],
  at: Placement,
): void {
  const { link } = d;
  let cursorMs = at.startLatestMs + WINDOW_GAP_MS;
  for (const w of windowed) {
    rules[w.direction].push({
      ...w.rule,
      from: `${msToSeconds(cursorMs)}s`,
      until: `${msToSeconds(cursorMs + w.lengthMs)}s`,
    });
    cursorMs += w.lengthMs + WINDOW_GAP_MS;
  }
  const outageWindows: Record<Block, Window[]> = { both: [], clientToServer: [], serverToClient: [] };
  for (const o of outages) {
    const startMs = cursorMs + o.offsetMs;
    const w = { startMs, endMs: startMs + o.lengthMs };
    outageWindows[o.block].push(w);
    cursorMs = w.endMs + WINDOW_GAP_MS;
  }
  if (cursorMs > at.endEarliestMs)
    throw new Error(
      `generator: windows end at ${cursorMs} ms, after the earliest traffic stop ${at.endEarliestMs} ms (run ${at.index})`,
    );
  // A direction's `outages` replaces both's: a direction with its own windows lists both's too.
  const both = outageWindows.both;
  for (const direction of DIRECTIONS) {
    if (outageWindows[direction].length > 0) {
      link[direction].outages = [...both, ...outageWindows[direction]]
        .sort((a, b) => a.startMs - b.startMs)
        .map(outageJson);
      expectFault(d, 'outage', direction);
    } else if (both.length > 0) {
      expectFault(d, 'outage', direction);
    }
  }
  if (both.length > 0) link.both.outages = both.map(outageJson);
}

function outageJson(w: Window): { start: string; end: string } {
  return { start: `${msToSeconds(w.startMs)}s`, end: `${msToSeconds(w.endMs)}s` };
}
