// One host's network update loop (docs/sources.md 16): every update first sends to
// each of its peers, then reads every datagram that waited on the socket, then
// dispatches, then decides each connection's fate. A client's loop has one peer;
// a dedicated server's has one per connection, in accept order.
import { ZERO_US, addUs, msToUs } from '../../core/engine/index.js';
import type { Micros, MillisIn, Scheduler, Timer } from '../../core/engine/index.js';

/** One connection's share of an update, in the loop's three steps. */
export interface UpdateSteps {
  /** Timeout check, keepalive, then SendOutgoingPackets. False: the connection ended. */
  sendStep(nowUs: Micros): boolean;
  /** ProcessIncomingMessages and DispatchReceivedMessages. */
  receiveStep(nowUs: Micros): void;
  /** After the update: false once the connection has ended. */
  endStep(nowUs: Micros): boolean;
}

/** Explicit bound: a server holds at most this many connections at once (slots are a byte). */
const MAX_LOOP_PEERS = 255;

export class UpdateLoop {
  private readonly peers: UpdateSteps[] = [];
  /** Per peer, this update: did sendStep end its connection? Reused by every tick. */
  private readonly ended: boolean[] = [];
  private timer: Timer | null = null;
  private periodUs: Micros;
  private running = false;
  private stopped = false;
  /** A handler ran inside the update until then: the next update waits for it. */
  private busyUntilUs: Micros = ZERO_US;
  /** The game's share of an update, before the sends: it queues what became due since the last. */
  private beforeSend: ((nowUs: Micros) => void) | null = null;

  /**
   * `idleRuns`: a server's loop keeps running with no connection (it listens);
   * a client's stops once its one connection has ended.
   */
  constructor(
    private readonly sim: Scheduler,
    periodMs: MillisIn,
    private readonly idleRuns: boolean,
  ) {
    this.periodUs = toPeriodUs(periodMs);
  }

  get size(): number {
    return this.peers.length;
  }

  /** Adds a connection; it takes part from the next update on. */
  add(peer: UpdateSteps): void {
    if (this.peers.length >= MAX_LOOP_PEERS) throw new Error(`update loop: more than ${MAX_LOOP_PEERS} connections`);
    this.peers.push(peer);
    if (!this.running && !this.stopped && this.timer !== null) this.resume();
  }

  /** The first update runs `phaseUs` from now. */
  start(phaseUs: Micros = ZERO_US): void {
    if (this.timer !== null) throw new Error('update loop: started twice');
    this.running = true;
    this.timer = this.sim.after(phaseUs, () => this.tick());
  }

  /** Stops for good: the end of a run, or the host went away. */
  stop(): void {
    if (this.timer !== null) this.sim.cancel(this.timer);
    this.running = false;
    this.stopped = true;
  }

  /** Runs at every update before its sends (the traffic's StateUpdates due by then). */
  onUpdate(beforeSend: (nowUs: Micros) => void): void {
    this.beforeSend = beforeSend;
  }

  /** From the next update on (docs/sources.md 17: per role and phase). */
  setPeriod(periodMs: MillisIn): void {
    this.periodUs = toPeriodUs(periodMs);
  }

  /**
   * A handler the current update dispatched to keeps the host busy for `busyUs`
   * (a long computation inside the update): the next update starts no sooner than
   * that after now. Nothing is read or sent meanwhile.
   */
  stall(busyUs: Micros): void {
    const until = addUs(this.sim.now, busyUs);
    if (until > this.busyUntilUs) this.busyUntilUs = until;
  }

  private resume(): void {
    this.running = true;
    this.sim.reschedule(this.timer as Timer, addUs(this.sim.now, this.periodUs));
  }

  private tick(): void {
    const now = this.sim.now;
    const peers = this.peers;
    const ended = this.ended;
    if (this.beforeSend !== null) this.beforeSend(now);
    for (let i = 0; i < peers.length; i++) ended[i] = !peers[i].sendStep(now);
    for (let i = 0; i < peers.length; i++) if (!ended[i]) peers[i].receiveStep(now);
    let kept = 0;
    for (let i = 0; i < peers.length; i++) {
      if (!ended[i] && peers[i].endStep(now)) peers[kept++] = peers[i];
    }
    if (kept !== peers.length) peers.length = kept; // the length setter is a runtime call: only when a peer left
    if (kept === 0 && !this.idleRuns) {
      this.running = false; // a client with nothing left; add() resumes it
      return;
    }
    const next = addUs(now, this.periodUs);
    this.sim.reschedule(this.timer as Timer, next < this.busyUntilUs ? this.busyUntilUs : next);
  }
}

function toPeriodUs(periodMs: MillisIn): Micros {
  const us = msToUs(periodMs);
  if (!(us > 0)) throw new Error(`transport: update period ${periodMs} ms must be positive`);
  return us;
}
