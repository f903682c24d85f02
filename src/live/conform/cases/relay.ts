// Two-player sessions for the cases that need the server to send on its own:
// one session (the sender) sends reliable game messages, the server relays
// them to the other players, and the other session (the receiver) judges how
// they come. A relayed message is a PythonEvent (opcode 0x06: dedicated servers
// relay it to every other player as it is) that carries a tag and its number,
// so each relayed copy is known by its number whatever seq the server gives it.
import { TYPE_GAME } from '../../../core/codec/index.js';
import type { DataMessage, Located } from '../../../core/codec/index.js';
import { Opcode } from '../../../model/traffic/index.js';
import type { CaseContext, Verdict } from '../case-types.js';
import { notExercised, seconds } from '../case-types.js';
import type { ConformClient, ServerMessage } from '../client.js';
import { isData } from '../client.js';
import { join, joined, newProgress } from '../join.js';

/** "bcsim" after the opcode: the tag of a relayed message of ours. */
const TAG = [0x62, 0x63, 0x73, 0x69, 0x6d];
/** Opcode, tag, u32 number. */
const HEADER_BYTES = 1 + TAG.length + 4;

/** A tagged message of `bytes` bytes (at least the header) carrying `n`; the filler depends on `n` alone. */
export function relayPayload(n: number, bytes = HEADER_BYTES): Uint8Array {
  const out = new Uint8Array(Math.max(HEADER_BYTES, bytes));
  out[0] = Opcode.PythonEvent;
  out.set(TAG, 1);
  new DataView(out.buffer).setUint32(1 + TAG.length, n >>> 0, true);
  for (let i = HEADER_BYTES; i < out.length; i++) out[i] = (n * 31 + i * 7) & 0xff;
  return out;
}

/** The number a relayed message of ours carries, or null when it is not one. */
export function relayNumber(payload: Uint8Array): number | null {
  if (payload.length < HEADER_BYTES || payload[0] !== Opcode.PythonEvent) return null;
  for (let i = 0; i < TAG.length; i++) if (payload[1 + i] !== TAG[i]) return null;
  return new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(1 + TAG.length, true);
}

/** A whole (unfragmented) relayed message of ours, as the receiver reads it. */
export function relayedNumber(m: Located): number | null {
  return isData(m) && m.type === TYPE_GAME && m.reliable && !m.fragment ? relayNumber(m.payload) : null;
}

export interface Pair {
  readonly sender: ConformClient;
  readonly receiver: ConformClient;
}

/** Opens two sessions and joins both (side by side); a join that stops makes the case NOT EXERCISED. */
export async function joinedPair(ctx: CaseContext, id: string): Promise<Pair | Verdict> {
  const [sender, receiver] = await Promise.all([ctx.open(`${id}/sender`), ctx.open(`${id}/receiver`)]);
  const progress = [newProgress(), newProgress()];
  await Promise.all([
    join(sender, ctx.manifest, progress[0], ctx.timings),
    join(receiver, ctx.manifest, progress[1], ctx.timings),
  ]);
  for (const [i, p] of progress.entries())
    if (!joined(p)) return notExercised(`the ${i === 0 ? 'sender' : 'receiver'}'s join stopped: ${p.stopped}`);
  return { sender, receiver };
}

/** How long a relayed message may take to reach the receiver. */
export const RELAY_WAIT_MS = 3000;
/**
 * The control is tried this often, this far apart: a server relays only to players
 * in the game, which a fresh player may enter seconds after its join.
 */
const CONTROL_TRIES = 16;
const CONTROL_EVERY_MS = 500;
/** Control messages carry numbers from here (the cases' own start at 1). */
const CONTROL_NUMBERS = 0xc000_0000;

/**
 * The control: a short message of the sender must reach the receiver. Without
 * it the server relays nothing, and a case that needs relays says so.
 */
export async function relayControl(pair: Pair): Promise<ServerMessage | Verdict> {
  for (let k = 0; k < CONTROL_TRIES; k++) {
    const n = CONTROL_NUMBERS + k;
    const at = pair.receiver.now;
    pair.sender.send([relayMessage(pair.sender, n)], `relay control #${k + 1}`);
    const relayed = await pair.receiver.waitFor(
      (m) => (relayedNumber(m.message) ?? 0) >= CONTROL_NUMBERS,
      k === CONTROL_TRIES - 1 ? RELAY_WAIT_MS : CONTROL_EVERY_MS,
      at,
    );
    if (relayed !== null) return relayed;
  }
  return notExercised(
    `the server relayed none of ${CONTROL_TRIES} game messages of one player to another in ${seconds((CONTROL_TRIES - 1) * CONTROL_EVERY_MS + RELAY_WAIT_MS)} (a PythonEvent, which a dedicated server relays to every other player): nothing to judge its own sending by`,
  );
}

export function isVerdict<T extends object>(x: T | Verdict): x is Verdict {
  return 'status' in x && 'summary' in x;
}

/** Our reliable message carrying `n`, with the sender's next high seq; unordered as stock game messages are, unless asked. */
export function relayMessage(
  sender: ConformClient,
  n: number,
  shape: { bytes?: number; ordered?: boolean } = {},
): DataMessage {
  return sender.reliable(TYPE_GAME, relayPayload(n, shape.bytes), shape.ordered ?? false);
}
