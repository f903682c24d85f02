// What one generated run is: the types the generator produces and the checker (invariants.ts) reads.
import type { Micros } from '../../core/engine/index.js';

export type Direction = 'clientToServer' | 'serverToClient';
export type Block = 'both' | Direction;
export type Peer = 'client' | 'server';
export const DIRECTIONS: readonly Direction[] = ['clientToServer', 'serverToClient'];

/**
 * A configured fault that must be seen to fire (invariant 4): on one client's links when
 * `client` is set (link.clients["k"]), else on every client's (the shared link blocks).
 */
export type FaultCheck =
  | {
      readonly fault: 'loss' | 'duplicate' | 'outage' | 'rule' | 'reorder' | 'bandwidth' | 'slot';
      readonly direction: Direction;
      readonly client?: number;
    }
  | { readonly fault: 'giveUp'; readonly peer: Peer };

export type SwarmPreset = 'fixed' | 'stock';

export interface RunSpec {
  /** The mode every check reads: the fixed-mode promise (invariants 2, 3, 6) holds in fixed mode only. */
  readonly preset: SwarmPreset;
  readonly generatorSeed: number;
  readonly index: number;
  readonly base: string;
  readonly seed: number;
  /** Clients in the session (1..4; `clients=N` among the sets when more than one). */
  readonly clients: number;
  /** `--set` overrides, exactly as the CLI takes them (mode, duration, transport, link, traffic). */
  readonly sets: readonly string[];
  readonly checks: readonly FaultCheck[];
  /** Coverage labels (fault classes this run exercises). */
  readonly classes: readonly string[];
  readonly durationUs: Micros;
  /** Phase 1 (after every client's join) must have started by this time for the windows and tail to hold. */
  readonly joinAllowanceUs: Micros;
  /** The quiet tail must last at least this long (from the tail phase's start to the end). */
  readonly tailUs: Micros;
  /** The tail is a `disconnect` phase (else an endless lull). */
  readonly disconnectTail: boolean;
  readonly plantedBug: string | null;
}

export interface GenerateOptions {
  /** 'fixed' (default) or 'stock': the mode's preset, in the `mode` --set and the command's --mode. */
  readonly preset?: SwarmPreset;
  /** Force a planted bug into every run's mode (the harness's self-test). */
  readonly plantedBug?: string;
  /**
   * Extra mode switches for every run (e.g. { closePolicy: 'immediate' } to see what the swarm
   * says about a remedy switched off). They go into the `mode` --set, so commands reproduce them.
   */
  readonly modeOverrides?: Readonly<Record<string, unknown>>;
}
