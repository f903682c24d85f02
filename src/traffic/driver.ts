// Runs a TrafficPlan on the simulator: one phase at a time, cycling if asked.
// The join is reactive (each step replies to a delivery); the other phases are
// timed arrival processes drawn from named streams.
import type { RandomStream, RandomStreams, Timer } from '../engine/index.js';
import type { Role } from '../transport/roles.js';
import { JOIN_STEPS, SHIP_SELECTION_MS, STATE_UPDATES_START_AFTER_SELECTION_MS } from './join.js';
import type { JoinStep } from './join.js';
import type { Phase, TrafficPlan } from './plan.js';
import { PayloadSalt, chatSender, eventsPerSecond, reliableEventSender, startArrivals, stateUpdateSender } from './sources.js';
import type { TrafficPort } from './sources.js';

export interface PhaseStart {
  readonly kind: Phase['kind'];
  readonly index: number;
  readonly startUs: number;
}

/** Explicit bound on the phase log kept for reports. */
const MAX_PHASE_LOG = 10_000;

export class TrafficDriver {
  readonly phaseLog: PhaseStart[] = [];
  private current = -1;
  private timers: Timer[] = [];
  private readonly joinAwaiting = new Map<number, JoinStep>();
  private readonly salt = new PayloadSalt();
  private readonly streams: {
    stateUpdates: Record<Role, RandomStream>;
    reliable: RandomStream;
    chat: RandomStream;
  };

  constructor(
    private readonly plan: TrafficPlan,
    private readonly port: TrafficPort,
    streams: RandomStreams,
  ) {
    this.streams = {
      stateUpdates: { client: streams.stream('traffic.stateUpdates.client'), server: streams.stream('traffic.stateUpdates.server') },
      reliable: streams.stream('traffic.reliable'),
      chat: streams.stream('traffic.chat'),
    };
  }

  start(): void {
    if (this.plan.phases.length > 0) this.enter(0);
  }

  /** The session reports every delivery; the join advances on them. */
  onDelivered(to: Role, uid: number): void {
    if (this.joinAwaiting.size === 0) return;
    const step = this.joinAwaiting.get(uid);
    if (step === undefined || step.from === to) return;
    this.joinAwaiting.delete(uid);
    const dependents = JOIN_STEPS.filter((s) => s.after === step.step);
    for (const next of dependents) this.schedule(next.delayMs * 1000, () => this.runJoinStep(next));
    if (dependents.length === 0 && step === JOIN_STEPS[JOIN_STEPS.length - 1]) {
      // Ship selection, then StateUpdates start ~150 ms later.
      this.schedule((SHIP_SELECTION_MS + STATE_UPDATES_START_AFTER_SELECTION_MS) * 1000, () => this.next());
    }
  }

  private enter(index: number): void {
    this.cancelTimers();
    this.current = index;
    const phase = this.plan.phases[index];
    if (this.phaseLog.length < MAX_PHASE_LOG) this.phaseLog.push({ kind: phase.kind, index, startUs: this.port.sim.now });
    if (phase.kind !== 'disconnect') this.port.setUpdatePeriods(phase.updatePeriodMs ?? null);
    switch (phase.kind) {
      case 'join':
        this.runJoinStep(JOIN_STEPS[0]);
        return; // ends when the last step is delivered
      case 'disconnect':
        this.port.disconnect('client');
        this.schedule(0, () => this.next());
        return;
      case 'quiet':
        break; // nothing from the game layer at all
      case 'lobby':
        this.track(startArrivals(this.port.sim, phase.chatPerMinute / 60, 'poisson', this.streams.chat, chatSender(this.port, this.streams.chat, this.salt)));
        break;
      case 'combat':
      case 'lull':
        for (const role of ['client', 'server'] as const) {
          const stream = this.streams.stateUpdates[role];
          this.track(startArrivals(this.port.sim, phase.stateUpdatesPerSecond, phase.arrival, stream, stateUpdateSender(this.port, role, phase.stateUpdateBytes, stream, this.salt)));
        }
        if (phase.kind === 'combat') {
          const stream = this.streams.reliable;
          this.track(startArrivals(this.port.sim, eventsPerSecond(phase.reliablePerSecond), phase.arrival, stream, reliableEventSender(this.port, phase.clientShare, stream, this.salt)));
        }
        break;
    }
    if (phase.durationUs !== null) this.schedule(phase.durationUs, () => this.next());
  }

  private next(): void {
    const following = this.current + 1;
    if (following < this.plan.phases.length) this.enter(following);
    else if (this.plan.repeatFrom !== null) this.enter(this.plan.repeatFrom);
    else this.cancelTimers();
  }

  private runJoinStep(step: JoinStep): void {
    let lastUid = -1;
    for (const message of step.messages) lastUid = this.port.send(step.from, message.type, message.payload, message.reliable, message.ordered);
    this.joinAwaiting.set(lastUid, step);
  }

  private schedule(delayUs: number, fn: () => void): void {
    this.timers.push(this.port.sim.after(delayUs, fn));
  }

  private track(timer: Timer | null): void {
    if (timer) this.timers.push(timer);
  }

  private cancelTimers(): void {
    for (const timer of this.timers) this.port.sim.cancel(timer);
    this.timers = [];
  }
}
