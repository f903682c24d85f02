// Raw engine throughput: scheduled-and-dispatched events per second.
// "Hold" model: a steady population of pending timers, each firing event
// schedules the next one at a pseudo-random offset, so the heap stays busy.
import { Simulator } from '../dist/core/engine/simulator.js';

export function benchEngine({ events = 5_000_000, population = 1_000 } = {}) {
  const sim = new Simulator();
  let x = 1;
  let remaining = events;
  const fire = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    if (--remaining > 0) sim.after(1 + (x % 10_000), fire);
  };
  for (let i = 0; i < population; i++) sim.at(i, fire);
  const start = process.hrtime.bigint();
  sim.runUntilIdle();
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { events: sim.eventCount, population, wallSeconds, eventsPerSecond: sim.eventCount / wallSeconds };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (let i = 0; i < 3; i++) {
    const r = benchEngine();
    console.log(
      `${(r.eventsPerSecond / 1e6).toFixed(2)}M events/s (${r.events} events, ${r.wallSeconds.toFixed(3)} s)`,
    );
  }
}
