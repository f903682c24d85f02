// A progress line on stderr for long runs: simulated time, speed against the
// wall clock, ETA. Only on a TTY, never with --json, never under CI. The wall
// clock is read here, in the CLI, never inside the simulation.
import { formatDuration, floorToSecondUs, msToSeconds, usToSeconds } from '../engine/index.js';
import type { CliIO } from './io.js';

const SHOW_AFTER_MS = 1000;
const WIDTH = 24;

export interface Progress {
  update(label: string, simulatedUs: number, totalUs: number): void;
  done(): void;
}

export function progressFor(io: CliIO, json: boolean, showAfterMs = SHOW_AFTER_MS): Progress | null {
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false';
  if (json || ci || !io.stderrIsTTY) return null;
  const startMs = performance.now(); // wall clock: allowed in the CLI only
  let runStartMs = startMs;
  let runLabel = '';
  let shown = false;
  return {
    update(label, simulatedUs, totalUs) {
      const now = performance.now(); // wall clock: CLI only
      if (label !== runLabel) {
        runLabel = label;
        runStartMs = now;
      }
      if (now - startMs < showAfterMs) return;
      shown = true;
      const fraction = totalUs === 0 ? 1 : simulatedUs / totalUs;
      const wallS = Math.max(msToSeconds(now - runStartMs), 1e-3);
      const ratio = usToSeconds(simulatedUs) / wallS;
      const etaS = fraction > 0 ? (wallS * (1 - fraction)) / fraction : 0;
      const filled = Math.round(fraction * WIDTH);
      const bar = `${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}`;
      // Below 1x the run takes longer than the time it simulates: say so (issue 9).
      const speed = ratio >= 1 ? `${Math.round(ratio).toLocaleString('en-US')}x real time` : `${ratio.toFixed(2)}x real time (slower than real time)`;
      io.stderr(`\r[${bar}] ${label} ${formatDuration(floorToSecondUs(simulatedUs))} / ${formatDuration(totalUs)}  ${speed}  ETA ${etaS.toFixed(1)}s   `);
    },
    done() {
      if (shown) io.stderr('\r\x1b[2K');
    },
  };
}
