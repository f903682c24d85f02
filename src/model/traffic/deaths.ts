// Ship deaths in combat (docs/sources.md 32): each death's burst, the wreckage's
// explosion with StateUpdates still flowing, the ship-selection screen, and the pick
// of a new ship, which the player announces with its own messages.
import { TYPE_GAME } from '../../core/codec/index.js';
import { micros, msToUsUnrounded, uniformInt, usPerEvent } from '../../core/engine/index.js';
import type { Micros, RandomStream, Timer } from '../../core/engine/index.js';
import { STATE_UPDATES_START_AFTER_SELECTION_MS } from './join.js';
import { deathBurst } from './mix.js';
import type { Deaths } from './plan.js';
import { startArrivals } from './sources.js';
import type { PayloadSalt, TrafficPort } from './sources.js';

/**
 * Where a dead player is: its ship is wreckage (StateUpdates continue, it starts no game
 * message), it is choosing a ship (no StateUpdates of its own), or it has picked one and
 * its StateUpdates start shortly.
 */
export type DeathStage = 'wreck' | 'selecting' | 'picked';

/** What the deaths need of the driver. */
export interface DeathHost {
  readonly port: TrafficPort;
  /** Players in game with a ship, in client order: a death takes one of them. */
  withShips(): readonly number[];
  /** Players the server sends the game to, in client order: they get a death's messages. */
  fed(): readonly number[];
  /** A player's stage changed (null: it has a ship again); `restart` false when it left or the run stops. */
  stageChanged(client: number, stage: DeathStage | null, restart: boolean): void;
}

export class ShipDeaths {
  /** Players without a living ship, each with the timer of its next stage. Bounded by the players. */
  private readonly stages = new Map<number, { stage: DeathStage; timer: Timer | null }>();
  /** Deaths so far, for the reports. */
  count = 0;
  /** The arrival timer of the phase's deaths (or the timer that starts them). */
  private arrivals: Timer | null = null;

  constructor(
    private readonly deaths: Deaths,
    private readonly host: DeathHost,
    private readonly stream: RandomStream,
    private readonly salt: PayloadSalt,
  ) {}

  /**
   * Deaths at perMinute until `stop` (the phase ends). Periodic deaths sit half a period
   * into each period, so none falls on the phase's first instant.
   */
  start(): void {
    this.stop();
    const sim = this.host.port.sim;
    const perSecond = this.deaths.perMinute / 60;
    if (!(perSecond > 0)) return;
    const begin = () => {
      this.arrivals = startArrivals(sim, perSecond, this.deaths.arrival, this.stream, () => this.die());
    };
    if (this.deaths.arrival === 'periodic') this.arrivals = sim.after(halfPeriodUs(perSecond), begin);
    else begin();
  }

  /** No more deaths; the dead players' stages go on. */
  stop(): void {
    if (this.arrivals !== null) this.host.port.sim.cancel(this.arrivals);
    this.arrivals = null;
  }

  stageOf(client: number): DeathStage | undefined {
    return this.stages.get(client)?.stage;
  }

  /** Is the player on the selection screen, or just past its pick: no StateUpdates of its own. */
  shipless(client: number): boolean {
    const stage = this.stageOf(client);
    return stage === 'selecting' || stage === 'picked';
  }

  /** The player has a ship again, left, or the run stops (`restart` false): its stage ends now. */
  end(client: number, restart: boolean): void {
    const entry = this.stages.get(client);
    if (entry === undefined) return;
    if (entry.timer !== null) this.host.port.sim.cancel(entry.timer);
    this.stages.delete(client);
    this.host.stageChanged(client, null, restart);
  }

  /** Every player's stage ends, none restarting (the run stops). */
  endAll(): void {
    for (const k of [...this.stages.keys()]) this.end(k, false);
  }

  /** A ship dies: every fed player gets the burst at once, and the ship is wreckage. */
  private die(): void {
    const candidates = this.host.withShips();
    if (candidates.length === 0) return;
    const victim = candidates[uniformInt(this.stream, 0, candidates.length - 1)];
    this.count++;
    // Before the victim's stage changes: it gets its own death's messages, whatever whileDead says.
    this.sendToFed(this.deaths.burst);
    if (this.deaths.explosionMs > 0) {
      this.enter(victim, 'wreck', this.deaths.explosionMs, () => this.explosionOver(victim));
    } else {
      this.explosionOver(victim);
    }
  }

  /** The explosion is over: the afterExplosion messages, then the ship-selection screen. */
  private explosionOver(victim: number): void {
    this.sendToFed(this.deaths.afterExplosion);
    this.enter(victim, 'selecting', this.deaths.selectionMs, () => this.picked(victim));
  }

  /** The player picked a ship: its onPick messages go to the server, its StateUpdates start ~150 ms later. */
  private picked(victim: number): void {
    for (const payload of deathBurst(this.deaths.onPick, this.salt))
      this.host.port.send('client', victim, TYPE_GAME, payload, true, false);
    this.enter(victim, 'picked', STATE_UPDATES_START_AFTER_SELECTION_MS, () => this.end(victim, true));
  }

  private enter(client: number, stage: DeathStage, afterMs: number, next: () => void): void {
    const previous = this.stages.get(client);
    if (previous?.timer) this.host.port.sim.cancel(previous.timer);
    const timer = this.host.port.sim.after(msToUsUnrounded(afterMs), next);
    this.stages.set(client, { stage, timer });
    this.host.stageChanged(client, stage, true);
  }

  private sendToFed(messages: Readonly<Record<string, number>>): void {
    const burst = deathBurst(messages, this.salt);
    if (burst.length === 0) return;
    for (const k of this.host.fed())
      for (const payload of burst) this.host.port.send('server', k, TYPE_GAME, payload, true, false);
  }
}

/** Half the mean gap of arrivals at `perSecond`, whole microseconds. */
function halfPeriodUs(perSecond: number): Micros {
  return micros(Math.round(usPerEvent(perSecond) / 2));
}
