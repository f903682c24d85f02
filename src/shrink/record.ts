// Recording a run's random link decisions (issue 15): every loss drop, duplicate (with the copy's
// delay) and jitter or reorder delay of each direction becomes one LinkFault. The recorders ride
// on the resolved scenario's link configs, so no session code changes and nothing else is touched.
import type { LinkConfig, LinkFault, LinkFaultRecorder } from '../link/config.js';
import type { Scenario } from '../scenario/scenario.js';
import { MAX_FAULTS } from '../scenario/schema.js';
import type { Direction } from '../swarm/spec.js';

export type Recorded = Record<Direction, LinkFault[]>;

export class RecordingLimit extends Error {
  override readonly name = 'RecordingLimit';
}

/** A recorder with a counted limit: a list longer than a scenario file may hold is refused. */
class BoundedRecorder implements LinkFaultRecorder {
  readonly faults: LinkFault[] = [];
  constructor(private readonly direction: Direction) {}

  record(fault: LinkFault): void {
    if (this.faults.length >= MAX_FAULTS) throw new RecordingLimit(`the run made more than ${MAX_FAULTS.toLocaleString('en-US')} random decisions on ${this.direction} (the most a fault list may hold); shorten it first`);
    this.faults.push(fault);
  }
}

/** The scenario with a recorder on both links of its one client, and what they will have recorded. */
export function withRecorders(scenario: Scenario): { scenario: Scenario; recorded: Recorded } {
  if (scenario.clientLinks.length !== 1) throw new Error(`shrink: ${scenario.clientLinks.length} clients; shrink records one client's links`);
  const c2s = new BoundedRecorder('clientToServer');
  const s2c = new BoundedRecorder('serverToClient');
  const links = scenario.clientLinks[0];
  const attach = (config: LinkConfig, recorder: LinkFaultRecorder): LinkConfig => ({ ...config, recorder });
  const link = { clientToServer: attach(links.clientToServer, c2s), serverToClient: attach(links.serverToClient, s2c) };
  return { scenario: { ...scenario, link, clientLinks: [link] }, recorded: { clientToServer: c2s.faults, serverToClient: s2c.faults } };
}
