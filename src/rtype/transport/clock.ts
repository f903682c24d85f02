// The server's game-loop clock (docs/sources.md 24): a frame is at least 1/30 s;
// the tick counter advances only when a frame finishes early (it then sleeps to
// the period); an overrunning frame starts the next one at once, tick unchanged.
import { addUs, micros, periodUs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { RtypeTiming } from './params.js';

export class TickClock {
  /** The game's `_tick`. */
  tick = 0;
  frames = 0;
  /** Frames whose work took the whole period or more: they did not advance the tick. */
  overrunFrames = 0;
  maxFrameWorkUs = 0;
  readonly periodUs: Micros;

  constructor(private readonly timing: RtypeTiming) {
    if (!(timing.tickHz > 0 && timing.tickHz <= 1000))
      throw new Error(`rtype clock: tickHz ${timing.tickHz} is not in (0, 1000]`);
    this.periodUs = periodUs(timing.tickHz);
  }

  /** The work a frame that sent `datagrams` datagrams costs. */
  workUs(datagrams: number): Micros {
    return micros(Math.round(this.timing.frameBaseWorkUs + this.timing.workPerDatagramUs * datagrams));
  }

  /** Ends the frame that started at `startUs` after `workUs` of work; returns when the next one starts. */
  finishFrame(startUs: Micros, workUs: Micros): Micros {
    if (!(Number.isInteger(workUs) && workUs >= 0))
      throw new Error(`rtype clock: frame work ${workUs} us is not a non-negative integer`);
    this.frames++;
    if (workUs > this.maxFrameWorkUs) this.maxFrameWorkUs = workUs;
    if (workUs < this.periodUs) {
      this.tick++;
      return addUs(startUs, this.periodUs);
    }
    this.overrunFrames++;
    return addUs(startUs, workUs);
  }
}
