// A resolved scenario: every default filled in, every unit converted.
import type { Micros, MillisIn } from '../../core/engine/index.js';
import type { LinkConfig } from '../link/index.js';
import type { TrafficPlan } from '../traffic/index.js';
import type { Role, PresetName, SwitchPatch, TransportParams } from '../transport/index.js';
import type { ExpectOp } from './schema.js';

/** The switches a scenario sets over its preset (the schema's `mode` block is held to this type). */
export type SwitchOverrides = SwitchPatch;

interface ClientLinks {
  readonly clientToServer: LinkConfig;
  readonly serverToClient: LinkConfig;
}

export type Assertion = Partial<Record<ExpectOp, number>>;
/** expect.<preset>.<summary path> = { op: number }. */
export type Expectations = Partial<Record<PresetName, Record<string, Assertion>>>;

export interface ScenarioParams extends TransportParams {
  /** The client's network updates run this long after the server's. */
  readonly clientTickOffsetMs: MillisIn;
  /** Network update period per role (docs/sources.md 17); a phase may change it. `tickMs` is the server's. */
  readonly updatePeriodMs: Readonly<Record<Role, MillisIn>>;
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** Where it came from: a file path or "builtin:<name>". */
  readonly source: string;
  readonly durationUs: Micros;
  readonly seed: number;
  readonly preset: PresetName;
  /** Switches set on top of whichever preset runs (compare runs both presets with them). */
  readonly switchOverrides: SwitchOverrides;
  readonly params: ScenarioParams;
  /** One server and this many clients (1..16). */
  readonly clients: number;
  /** Client 1's links (every client's, unless link.clients overrides some). */
  readonly link: ClientLinks;
  /** Each client's two links, client 1 first. */
  readonly clientLinks: readonly ClientLinks[];
  readonly traffic: TrafficPlan;
  readonly expect: Expectations;
  /** The --set overrides that were applied, for reproduction commands. */
  readonly overrides: readonly string[];
}
