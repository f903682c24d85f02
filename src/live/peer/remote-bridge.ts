// The traffic script against a real counterpart. The script
// (src/model/traffic) drives both ends of a connection and advances the join on
// deliveries, keyed by the uid of each step's last message. Live, the other
// end is real: its messages are not ours to send and carry no uid.
//
// So a join message "sent from the counterpart" becomes an expectation
// {type, opcode}, and a join message the counterpart really delivers to us is
// matched to the oldest expectation of its kind (either may come first:
// unmatched deliveries wait too). Other messages of the counterpart's end are
// its own business: the script's copies are not sent, and the real ones are
// delivered as they come (a server relays them). A matched delivery is reported under the expectation's uid, which
// is how the script's join moves on exactly as in a simulated run. Our own
// reliable messages are reported as delivered to the counterpart at once
// (after the script recorded their uid): the counterpart's reply, not our
// guess, decides when its next step happens.
import { TYPE_GAME } from '../../core/codec/index.js';
import { ZERO_US } from '../../core/engine/index.js';
import type { Scheduler } from '../../core/engine/index.js';
import type { JoinStep } from '../../model/traffic/index.js';
import type { Delivery, Role } from '../../model/transport/index.js';

/** Explicit bounds: expectations and unmatched deliveries kept per connection (oldest go first, counted). */
const MAX_EXPECTATIONS = 256;
const MAX_UNMATCHED = 256;

interface Expectation {
  readonly kind: number;
  readonly uid: number;
}

interface Waiting {
  readonly kind: number;
  readonly delivery: Delivery;
}

/** The matching key of a message: its type, and a game message's opcode (first payload byte). */
function messageKind(type: number, payload: Uint8Array): number {
  return type === TYPE_GAME && payload.length > 0 ? (type << 8) | payload[0] : type << 8;
}

/** The kinds of message the join script has `from` send: only these are matched. */
function joinKinds(join: readonly JoinStep[], from: Role): ReadonlySet<number> {
  const kinds = new Set<number>();
  for (const step of join)
    if (step.from === from) for (const m of step.messages) kinds.add(messageKind(m.type, m.payload));
  return kinds;
}

export interface BridgeTarget {
  onDelivered(to: Role, client: number, uid: number, delivery: Delivery): void;
}

export class RemoteBridge {
  private readonly expected = new Map<number, Expectation[]>();
  private readonly unmatched = new Map<number, Waiting[]>();
  private readonly remoteJoinKinds: ReadonlySet<number>;
  private nextPhantomUid = -2;
  /** Expectations and deliveries pushed out by the bounds. */
  forgotten = 0;
  matched = 0;

  constructor(
    private readonly clock: Scheduler,
    readonly localRole: Role,
    private readonly target: () => BridgeTarget,
    /** The run's join (its scenario's checksum manifest). */
    join: readonly JoinStep[],
  ) {
    this.remoteJoinKinds = joinKinds(join, this.remoteRole);
  }

  get remoteRole(): Role {
    return this.localRole === 'client' ? 'server' : 'client';
  }

  /**
   * The script sent a message from the counterpart's end: the counterpart will
   * send its own. Returns the phantom uid the script keys it by (below -1, so
   * it never collides with ours or with "no uid").
   */
  expect(client: number, type: number, payload: Uint8Array, reliable: boolean): number {
    const kind = messageKind(type, payload);
    if (!reliable || !this.remoteJoinKinds.has(kind)) return -1;
    const uid = this.nextPhantomUid--;
    const waiting = this.unmatched.get(client);
    const at = waiting?.findIndex((w) => w.kind === kind) ?? -1;
    if (waiting !== undefined && at >= 0) {
      const [hit] = waiting.splice(at, 1);
      // Reported after the script has recorded the uid, as a delivery would be.
      this.clock.after(ZERO_US, () => this.report(this.localRole, client, uid, hit.delivery));
      return uid;
    }
    push(this.expected, client, { kind, uid }, MAX_EXPECTATIONS, () => this.forgotten++);
    return uid;
  }

  /** One of our reliable messages was handed to our transport. */
  sentOwn(client: number, uid: number, type: number, payload: Uint8Array): void {
    const delivery: Delivery = { type, low: false, reliable: true, seq: null, payload, uid };
    this.clock.after(ZERO_US, () => this.target().onDelivered(this.remoteRole, client, uid, delivery));
  }

  /** The counterpart's message reached our application. */
  delivered(client: number, delivery: Delivery): void {
    const kind = messageKind(delivery.type, delivery.payload);
    if (!delivery.reliable || !this.remoteJoinKinds.has(kind)) {
      this.target().onDelivered(this.localRole, client, delivery.uid, delivery);
      return;
    }
    const list = this.expected.get(client);
    const at = list?.findIndex((e) => e.kind === kind) ?? -1;
    if (list !== undefined && at >= 0) {
      const [hit] = list.splice(at, 1);
      this.report(this.localRole, client, hit.uid, delivery);
      return;
    }
    // The payload view is the receiver's; keep a copy while it waits.
    push(
      this.unmatched,
      client,
      { kind, delivery: { ...delivery, payload: delivery.payload.slice() } },
      MAX_UNMATCHED,
      () => this.forgotten++,
    );
  }

  /** A new client took `client`'s place: the old one's expectations and waiting deliveries go. */
  forget(client: number): void {
    this.expected.delete(client);
    this.unmatched.delete(client);
  }

  private report(to: Role, client: number, uid: number, delivery: Delivery): void {
    this.matched++;
    this.target().onDelivered(to, client, uid, { ...delivery, uid });
  }
}

function push<T>(map: Map<number, T[]>, client: number, item: T, limit: number, onForget: () => void): void {
  let list = map.get(client);
  if (list === undefined) map.set(client, (list = []));
  if (list.length >= limit) {
    list.shift();
    onForget();
  }
  list.push(item);
}
