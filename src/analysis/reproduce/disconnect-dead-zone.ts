// What the client's Disconnect datagram carries, read back from the wire: every
// stale ACK in it (sent by the gated pass 2, ack-outbox-deadlock.md §1–§2), with
// its key, its age, how often it had been sent before, and how long the gate
// had been shut. docs/sources.md 21 and 28: the captured Disconnect carries
// exactly 2 stale ACKs.
import { TYPE_ACK, TYPE_DISCONNECT, ackFlagsFragment, ackFlagsLowType, packAckKey } from '../../core/codec/index.js';
import type { AckMessage } from '../../core/codec/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { Wire } from './wire-facts.js';

/** One ACK-outbox entry that reached the Disconnect in the dead zone (sent 3 to 8 times). */
interface StrandedEntry {
  /** `H150`: the category (L low, H high), the seq, and `/i` for a fragment's index. */
  readonly key: string;
  /** Its first send (pass 1, the update after the message was read), in s. */
  readonly firstSendS: number;
  /** From its first send to the Disconnect, in s. */
  readonly ageS: number;
  /** Its sends before the Disconnect: 3 in pass 1, the rest in pass 2. */
  readonly sends: number;
  readonly lastSendS: number;
}

export interface DisconnectDeadZone {
  readonly disconnectS: number;
  /** The client's last datagram with game data (anything but ACKs) before the Disconnect. */
  readonly lastGameDataS: number | null;
  /** The client's last datagram before the Disconnect: the last update whose steps 1–3 wrote anything. */
  readonly lastDatagramS: number | null;
  /** The stale ACKs of the Disconnect datagram, in the order it carries them. */
  readonly entries: readonly StrandedEntry[];
}

const keyName = (ack: AckMessage) =>
  `${ackFlagsLowType(ack.flags) ? 'L' : 'H'}${ack.seq}${ackFlagsFragment(ack.flags) ? `/${ack.fragIndex}` : ''}`;

/** The stale ACKs of client 1's first Disconnect, with their history on the wire; null when it sent none. */
export function deadZoneAtDisconnect(sent: readonly Wire[]): DisconnectDeadZone | null {
  const client = sent.filter((d) => d.from === 'client');
  const bye = client.find((d) => d.messages.some((m) => m.type === TYPE_DISCONNECT));
  if (bye === undefined) return null;
  const before = client.filter((d) => d.t < bye.t);
  // Every send of each ACK key before the Disconnect, in time order.
  const sendsOf = new Map<number, number[]>();
  for (const d of before)
    for (const m of d.messages) {
      if (m.type !== TYPE_ACK) continue;
      const key = packAckKey(m);
      const times = sendsOf.get(key) ?? [];
      times.push(d.t);
      sendsOf.set(key, times);
    }
  const entries: StrandedEntry[] = [];
  bye.messages.forEach((m, i) => {
    if (m.type !== TYPE_ACK || bye.notes[i] !== SendNote.StaleAck) return;
    const times = sendsOf.get(packAckKey(m)) ?? [];
    entries.push({
      key: keyName(m),
      firstSendS: times[0] ?? bye.t,
      ageS: bye.t - (times[0] ?? bye.t),
      sends: times.length,
      lastSendS: times.at(-1) ?? bye.t,
    });
  });
  const game = before.filter((d) => d.messages.some((m) => m.type !== TYPE_ACK));
  return {
    disconnectS: bye.t,
    lastGameDataS: game.at(-1)?.t ?? null,
    lastDatagramS: before.at(-1)?.t ?? null,
    entries,
  };
}
