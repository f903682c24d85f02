// The live peer's accounting of its own reliable messages. A
// simulated run's ledger sees both ends; live, only ours is visible, so a
// message is "sent", then "ACKed" (the counterpart's ACK cleared it) or "given
// up". Delivery at the counterpart is what the conformance rules judge.
import { LimitError } from '../../core/engine/index.js';

/** Explicit bound: reliable messages one live run may originate. */
const MAX_OWN_MESSAGES = 10_000_000;

const ACKED = 1;
const GAVE_UP = 2;
const REFUSED = 4;
/** Originated by the transport itself (keepalive, echo, Disconnect, Boot), not by the game. */
const TRANSPORT = 8;

export interface OwnMessageStats {
  /** Reliable messages of the game (the traffic script), fragmented ones once. */
  reliableSent: number;
  /** Reliable messages the transport originated (keepalive, Disconnect, Boot). */
  transportReliableSent: number;
  acknowledged: number;
  unacknowledged: number;
  gaveUp: number;
  refused: number;
  unreliableSent: number;
}

export class OwnMessages {
  private flags = new Uint8Array(1024);
  private count = 0;
  unreliableSent = 0;

  register(transport = false): number {
    if (this.count >= MAX_OWN_MESSAGES)
      throw new LimitError(`live: more than ${MAX_OWN_MESSAGES.toLocaleString('en-US')} reliable messages in one run`);
    if (this.count === this.flags.length) {
      const grown = new Uint8Array(this.flags.length * 2);
      grown.set(this.flags);
      this.flags = grown;
    }
    if (transport) this.flags[this.count] = TRANSPORT;
    return this.count++;
  }

  acknowledged(uid: number): void {
    if (uid >= 0 && uid < this.count) this.flags[uid] |= ACKED;
  }

  gaveUp(uid: number): void {
    if (uid >= 0 && uid < this.count) this.flags[uid] |= GAVE_UP;
  }

  refused(uid: number): void {
    if (uid >= 0 && uid < this.count) this.flags[uid] |= REFUSED;
  }

  stats(): OwnMessageStats {
    let acknowledged = 0;
    let gaveUp = 0;
    let refused = 0;
    let transport = 0;
    for (let uid = 0; uid < this.count; uid++) {
      const f = this.flags[uid];
      if (f & REFUSED) refused++;
      else if (f & TRANSPORT) transport++;
      else if (f & ACKED) acknowledged++;
      else if (f & GAVE_UP) gaveUp++;
    }
    // The fate columns are the game's messages'; the transport's own are only counted.
    const reliableSent = this.count - refused - transport;
    return {
      reliableSent,
      transportReliableSent: transport,
      acknowledged,
      unacknowledged: reliableSent - acknowledged - gaveUp,
      gaveUp,
      refused,
      unreliableSent: this.unreliableSent,
    };
  }
}
