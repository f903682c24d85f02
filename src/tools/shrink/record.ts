// Recording a run's random link decisions: every loss drop, duplicate (with the copy's
// delay) and jitter or reorder delay of each direction becomes one LinkFault. The recorders ride
// on the resolved scenario's link configs (every client's), so no session code changes.
import type { LinkConfig, LinkFault, LinkFaultRecorder } from '../../model/link/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { MAX_FAULTS } from '../../model/scenario/index.js';
import type { Direction } from '../swarm/index.js';

/** One client's two lists. */
export type Recorded = Record<Direction, LinkFault[]>;

class RecordingLimit extends Error {
  override readonly name = 'RecordingLimit';
}

/** A recorder with a counted limit: a list longer than a scenario file may hold is refused. */
class BoundedRecorder implements LinkFaultRecorder {
  readonly faults: LinkFault[] = [];
  constructor(private readonly where: string) {}

  record(fault: LinkFault): void {
    if (this.faults.length >= MAX_FAULTS)
      throw new RecordingLimit(
        `the run made more than ${MAX_FAULTS.toLocaleString('en-US')} random decisions on ${this.where} (the most a fault list may hold); shorten it first`,
      );
    this.faults.push(fault);
  }
}

/**
 * The scenario with a recorder on both links of every client, and what they will have recorded:
 * `byClient[k - 1]` is client k's, and `recorded` client 1's (the one-client shape).
 */
export function withRecorders(scenario: Scenario): { scenario: Scenario; recorded: Recorded; byClient: Recorded[] } {
  const many = scenario.clientLinks.length > 1;
  const recorded: Recorded[] = [];
  const attach = (config: LinkConfig, recorder: BoundedRecorder): LinkConfig => ({ ...config, recorder });
  const clientLinks = scenario.clientLinks.map((links, i) => {
    const on = (dir: Direction) => new BoundedRecorder(many ? `client ${i + 1}'s ${dir}` : dir);
    const c2s = on('clientToServer');
    const s2c = on('serverToClient');
    recorded.push({ clientToServer: c2s.faults, serverToClient: s2c.faults });
    return { clientToServer: attach(links.clientToServer, c2s), serverToClient: attach(links.serverToClient, s2c) };
  });
  return { scenario: { ...scenario, link: clientLinks[0], clientLinks }, recorded: recorded[0], byClient: recorded };
}
