// A progress line on stderr for long runs: simulated time, speed against the
// wall clock, ETA. Only on a TTY, never with --json, never under CI. The wall
// clock is read here, in the CLI, never inside the simulation.
// Runs may go on side by side (compare's columns on worker threads): each label
// keeps its own start and figures, and the line shows every run still going.
import { formatDuration, floorToSecondUs, msToSeconds, usToSeconds } from '../core/engine/index.js';
import type { CliIO } from './io.js';

const SHOW_AFTER_MS = 1000;
const WIDTH = 24;
/** More runs than this at once are never shown (compare has at most 8 columns). */
const MAX_RUNS_SHOWN = 8;

export interface Progress {
  update(label: string, simulatedUs: number, totalUs: number): void;
  done(): void;
}

interface RunProgress {
  readonly startMs: number;
  simulatedUs: number;
  totalUs: number;
}

export function progressFor(
  io: CliIO,
  json: boolean,
  showAfterMs = SHOW_AFTER_MS,
  now: () => number = () => performance.now(),
): Progress | null {
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false';
  if (json || ci || !io.stderrIsTTY) return null;
  const startMs = now(); // wall clock: allowed in the CLI only
  /** The runs still going, by label, in the order they started. */
  const runs = new Map<string, RunProgress>();
  // A run starts when the last one finished (a free thread), or with the command.
  let freedMs = startMs;
  let shown = false;
  return {
    update(label, simulatedUs, totalUs) {
      const at = now(); // wall clock: CLI only
      let run = runs.get(label);
      if (run === undefined) {
        run = { startMs: freedMs, simulatedUs, totalUs };
        if (runs.size < MAX_RUNS_SHOWN) runs.set(label, run);
      }
      run.simulatedUs = simulatedUs;
      run.totalUs = totalUs;
      if (simulatedUs >= totalUs) {
        runs.delete(label);
        freedMs = at;
      }
      if (at - startMs < showAfterMs) return;
      const going = runs.size > 0 ? [...runs] : [[label, run] as const];
      shown = true;
      io.stderr(`\r${line(going, at)}   `);
    },
    done() {
      if (shown) io.stderr('\r\x1b[2K');
      // The next runs (a trace after its slot search) start afresh.
      runs.clear();
      freedMs = now(); // wall clock: CLI only
    },
  };
}

/** One run: `[bar] label 1h / 4h  N x real time  ETA s`; several: each label with its time and speed, one bar and ETA. */
function line(going: ReadonlyArray<readonly [string, RunProgress]>, at: number): string {
  const figures = going.map(([label, run]) => {
    const fraction = run.totalUs === 0 ? 1 : run.simulatedUs / run.totalUs;
    const wallS = Math.max(msToSeconds(at - run.startMs), 1e-3);
    const ratio = usToSeconds(run.simulatedUs) / wallS;
    const etaS = fraction > 0 ? (wallS * (1 - fraction)) / fraction : 0;
    const time = `${label} ${formatDuration(floorToSecondUs(run.simulatedUs))} / ${formatDuration(run.totalUs)}`;
    return { fraction, ratio, etaS, time };
  });
  const fraction = figures.reduce((sum, f) => sum + f.fraction, 0) / figures.length;
  const etaS = Math.max(...figures.map((f) => f.etaS));
  const filled = Math.round(fraction * WIDTH);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]`;
  if (figures.length === 1) return `${bar} ${figures[0].time}  ${speed(figures[0].ratio)}  ETA ${etaS.toFixed(1)}s`;
  return `${bar} ${figures.map((f) => `${f.time} ${speed(f.ratio, true)}`).join(' · ')}  ETA ${etaS.toFixed(1)}s`;
}

/** Below 1x the run takes longer than the time it simulates: say so. */
function speed(ratio: number, short = false): string {
  const x = ratio >= 1 ? `${Math.round(ratio).toLocaleString('en-US')}x` : `${ratio.toFixed(2)}x`;
  if (short) return ratio >= 1 ? x : `${x} (slower than real time)`;
  return ratio >= 1 ? `${x} real time` : `${x} real time (slower than real time)`;
}
