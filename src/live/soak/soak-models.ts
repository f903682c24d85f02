// The soak's two reference columns: bcsim's stock and fixed models of the same
// scenario, seed, clients and loss, run for as long as the soak measured, and
// read by the same MinuteMeter from the clients' side of the wire.
import { meterScenario } from '../../analysis/capture/index.js';
import { micros, secondsToUs } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { SoakColumn } from './soak-report.js';

export function modelColumns(scenario: Scenario, seed: number, endS: number): [SoakColumn, SoakColumn] {
  const durationUs = micros(Math.max(1, secondsToUs(endS)));
  const column = (preset: 'stock' | 'fixed'): SoakColumn => {
    const run = meterScenario(scenario, { preset, seed, durationUs });
    return {
      id: preset,
      label: `${preset} (model)`,
      rows: run.meter.rows,
      endS: run.simulatedSeconds,
      traceHash: run.traceHash,
    };
  };
  return [column('stock'), column('fixed')];
}
