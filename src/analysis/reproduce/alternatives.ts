// The readings a verdict may flip under: those `reproduce ack-outbox` and
// `reproduce fragment-ack` rank close to the stock preset's (a test keeps this
// list in step with the tables), each as the change it makes to a scenario.
import type { Scenario, SwitchOverrides } from '../../model/scenario/index.js';
import type { Phase } from '../../model/traffic/index.js';
import { changesBetween, readingNamed, STOCK_READING } from './readings.js';
import type { Reading } from './readings.js';

/**
 * Of similar rank to the stock reading: the same captured bytes, at most one
 * measured figure fewer (the ack-outbox table; "no-fragment-resend" by the
 * fragment-ACK table's weighing), or tied with it.
 */
export const VERDICT_ALTERNATIVES = [
  'no-pass-one+outside',
  'no-fragment-resend',
  'clients-30hz',
  '2-datagrams',
] as const;
export type VerdictAlternative = (typeof VERDICT_ALTERNATIVES)[number];

/** One loopback scenario runs its server this fast (docs/sources.md 17): the loopback readings apply to it. */
const LOOPBACK_SERVER_MS = 20;

export interface AlternativeRun {
  readonly name: VerdictAlternative;
  readonly description: string;
  /** What it changes from the stock reading, for the sentence that names it. */
  readonly changes: readonly string[];
  readonly scenario: Scenario;
  readonly switches: SwitchOverrides;
}

/** What the reading says of itself, e.g. "calibrated, but …". */
export function alternativeDescription(name: VerdictAlternative): string {
  return (readingNamed(name) as Reading).description;
}

/** A phase with its own client period set to `clientMs`; one without its own periods as it is. */
function withClientPeriod(phase: Phase, clientMs: number): Phase {
  if (!('updatePeriodMs' in phase) || !phase.updatePeriodMs) return phase;
  return { ...phase, updatePeriodMs: { ...phase.updatePeriodMs, client: clientMs } };
}

/** The stock column's run under `name`: the scenario and switches with only what that reading changes. */
export function alternativeRun(
  scenario: Scenario,
  stockSwitches: SwitchOverrides,
  name: VerdictAlternative,
): AlternativeRun {
  const stock = readingNamed(STOCK_READING) as Reading;
  const alt = readingNamed(name) as Reading;
  const changes = changesBetween(stock, alt);
  const loopback = scenario.params.updatePeriodMs.server <= LOOPBACK_SERVER_MS;
  let params = scenario.params;
  let traffic = scenario.traffic;
  const switches: Record<string, unknown> = { ...stockSwitches };
  for (const path of changes) {
    const [head, field] = path.split('.');
    // Ship deaths of the session experiments are traffic the scenario would have to resolve: not a verdict alternative yet.
    if (head === 'sessionTraffic')
      throw new Error(
        `alternativeRun: "${name}" changes the session's traffic (${path}), which a verdict rerun does not apply`,
      );
    if (head === 'transport') params = { ...params, [field]: alt.transport[field] };
    else if (head === 'traffic') traffic = { ...traffic, [field]: alt.traffic[field] };
    else if (
      (head === 'sessionClientMs' && !loopback && alt.sessionClientMs !== null) ||
      (head === 'loopbackClientMs' && loopback && alt.loopbackClientMs !== null)
    ) {
      // For the whole run, a phase's own period (the loopback join's) included.
      const client = (head === 'sessionClientMs' ? alt.sessionClientMs : alt.loopbackClientMs) as number;
      params = { ...params, updatePeriodMs: { ...params.updatePeriodMs, client } };
      traffic = { ...traffic, phases: traffic.phases.map((p) => withClientPeriod(p, client)) };
    } else if (head === 'keepalive' || head === 'retransmit') {
      const group = (alt.switches as Record<string, Record<string, unknown>>)[head];
      switches[head] = { ...(switches[head] as object), [field]: group[field] };
    } else if (head !== 'sessionClientMs' && head !== 'loopbackClientMs') {
      switches[head] = (alt.switches as Record<string, unknown>)[head];
    }
  }
  return {
    name,
    description: alt.description,
    changes,
    scenario: { ...scenario, params, traffic },
    switches: switches as SwitchOverrides,
  };
}
