// The captured Disconnect (docs/sources.md 21, 28: exactly 2 stale ACKs) at the
// end of a minute of combat, as an experiment of `reproduce ack-outbox`: the
// loopback join, 60 s of combat at the 34-minute session's aggregate rates,
// 3.4 s without game data, the client's Disconnect.
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario } from '../../model/session/index.js';
import { cell } from './criteria.js';
import type { Cells } from './criteria.js';
import { deadZoneAtDisconnect } from './disconnect-dead-zone.js';
import { MEASURED_FLOW } from './evidence-flow.js';
import type { DisconnectDeadZone } from './disconnect-dead-zone.js';
import type { RunWith } from './readings.js';
import { wireRecorder } from './wire-facts.js';

/**
 * The measured Disconnect flow without its lull and its final pair: whatever the
 * server sent last in combat is still owed when the game data stops.
 */
const [join, combat, , , quiet, disconnect] = MEASURED_FLOW.traffic.phases;
export const COMBAT_DISCONNECT_FLOW = {
  ...MEASURED_FLOW,
  name: 'combat-then-disconnect',
  traffic: { phases: [join, combat, quiet, disconnect] },
};

/** The dead zone the client's Disconnect carries after this flow (null: no Disconnect was sent). */
function combatDisconnectDeadZone(scenario: Scenario, options: RunWith): DisconnectDeadZone | null {
  const wire = wireRecorder();
  runScenario(scenario, { ...options, observer: wire.observer });
  return deadZoneAtDisconnect(wire.sent);
}

export function combatDisconnectRun(scenario: Scenario, options: RunWith): Pick<Cells, 'combatDisconnect'> {
  const dz = combatDisconnectDeadZone(scenario, options);
  if (dz === null) return { combatDisconnect: cell('combatDisconnect', 'no Disconnect', false) };
  const n = dz.entries.length;
  const sends = dz.entries.map((e) => e.sends);
  const range = n === 0 ? '' : ` (${dz.entries[0].key}–${dz.entries[n - 1].key}, sent ${spread(sends)} times)`;
  return {
    combatDisconnect: cell('combatDisconnect', `${n} stale ACK${n === 1 ? '' : 's'}${range}`, n === 2),
  };
}

const spread = (values: readonly number[]) => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? `${lo}` : `${lo}–${hi}`;
};
