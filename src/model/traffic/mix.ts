// The measured mix of reliable game events (docs/sources.md T1:
// counts by type from the 34-minute session, payload sizes in bytes).
import type { RandomStream } from '../../core/engine/index.js';
import { uniformInt, weightedIndex } from '../../core/engine/index.js';
import { Opcode, templatePayload } from './payloads.js';

export interface EventKind {
  readonly name: string;
  readonly opcode: number;
  /** Occurrences in the capture; the draw weight. */
  readonly count: number;
  /** Candidate payload sizes; one is drawn per event. */
  readonly payloadBytes: readonly number[];
  /** Messages per event: StartFiring is always sent twice in one datagram. */
  readonly copies: 1 | 2;
}

export const MEASURED_MIX: readonly EventKind[] = [
  { name: 'PythonEvent', opcode: Opcode.PythonEvent, count: 3825, payloadBytes: [17, 21, 25], copies: 1 },
  // 2,918 StartFiring messages = 1,459 pairs.
  { name: 'StartFiring', opcode: Opcode.StartFiring, count: 1459, payloadBytes: [25], copies: 2 },
  { name: 'StopFiring', opcode: Opcode.StopFiring, count: 1448, payloadBytes: [17], copies: 1 },
  { name: 'TorpedoFire', opcode: Opcode.TorpedoFire, count: 1090, payloadBytes: [10, 18], copies: 1 },
  // 22 + 4 per contact, 1–4 contacts.
  { name: 'CollisionEffect', opcode: Opcode.CollisionEffect, count: 317, payloadBytes: [26, 30, 34, 38], copies: 1 },
  { name: 'BeamFire', opcode: Opcode.BeamFire, count: 157, payloadBytes: [10, 14], copies: 1 },
  { name: 'SubsysStatus', opcode: Opcode.SubsysStatus, count: 64, payloadBytes: [18], copies: 1 },
  { name: 'Explosion', opcode: Opcode.Explosion, count: 60, payloadBytes: [14], copies: 1 },
  // Sizes for chat and object creation are not in the table; modest guesses.
  { name: 'Chat', opcode: Opcode.Chat, count: 57, payloadBytes: [24, 40, 64], copies: 1 },
  { name: 'ObjCreate', opcode: Opcode.ObjCreate, count: 42, payloadBytes: [40], copies: 1 },
];

/** The kinds a combat phase draws its reliable events from, with their draw weights. */
export interface EventMix {
  readonly kinds: readonly EventKind[];
  readonly weights: readonly number[];
  readonly totalWeight: number;
  /** Mean messages per drawn event, to turn a message rate into an event rate. */
  readonly messagesPerEvent: number;
}

function mixOf(kinds: readonly EventKind[]): EventMix {
  const weights = kinds.map((kind) => kind.count);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  return {
    kinds,
    weights,
    totalWeight,
    messagesPerEvent: kinds.reduce((sum, kind) => sum + kind.count * kind.copies, 0) / totalWeight,
  };
}

export const FULL_MIX: EventMix = mixOf(MEASURED_MIX);

/** Mean messages per drawn event of the whole measured mix. */
export const MESSAGES_PER_EVENT = FULL_MIX.messagesPerEvent;

export const EVENT_KIND_NAMES: readonly string[] = MEASURED_MIX.map((kind) => kind.name);

/** The measured mix restricted to `names` (their measured weights kept); null = the whole mix. */
export function eventMix(names: readonly string[] | null): EventMix {
  if (names === null) return FULL_MIX;
  const kinds = MEASURED_MIX.filter((kind) => names.includes(kind.name));
  if (kinds.length === 0) throw new Error(`mix: no event kind among ${names.join(', ')}`);
  return mixOf(kinds);
}

export function drawEvent(stream: RandomStream, mix: EventMix = FULL_MIX): { kind: EventKind; payloadBytes: number } {
  const kind = mix.kinds[weightedIndex(stream, mix.weights, mix.totalWeight)];
  const payloadBytes =
    kind.payloadBytes.length === 1
      ? kind.payloadBytes[0]
      : kind.payloadBytes[uniformInt(stream, 0, kind.payloadBytes.length - 1)];
  return { kind, payloadBytes };
}

/**
 * Messages that only a ship death sends (docs/sources.md 32), beside the measured mix's kinds:
 * the ObjectExplodingEvent and the subsystem events travel as PythonEvents (25 and 17 bytes,
 * the mix's PythonEvent sizes), the score change as a 17-byte Score, and the new ship the
 * player picks as an ObjCreateTeam (40 bytes, the mix's ObjCreate).
 */
interface BurstKind {
  readonly name: string;
  readonly opcode: number;
  readonly payloadBytes: number;
}
const DEATH_MESSAGE_KINDS: readonly BurstKind[] = [
  { name: 'ObjectExplodingEvent', opcode: Opcode.PythonEvent, payloadBytes: 25 },
  { name: 'Score', opcode: Opcode.Score, payloadBytes: 17 },
  { name: 'SubsystemEvent', opcode: Opcode.PythonEvent, payloadBytes: 17 },
  { name: 'ObjCreateTeam', opcode: Opcode.ObjCreate, payloadBytes: 40 },
];
/** What a burst may name, in the order a burst sends them: the death's own messages, then the mix's kinds. */
const BURST_KINDS: readonly BurstKind[] = [
  ...DEATH_MESSAGE_KINDS,
  ...MEASURED_MIX.map((kind) => ({ name: kind.name, opcode: kind.opcode, payloadBytes: kind.payloadBytes[0] })),
];
export const BURST_KIND_NAMES: readonly string[] = BURST_KINDS.map((kind) => kind.name);

/**
 * The messages of one burst of a ship death (traffic.deaths.burst, afterExplosion, onPick):
 * `count` of each named kind, in BURST_KINDS order; a mix kind at its first measured size.
 */
export function deathBurst(burst: Readonly<Record<string, number>>, salt: { next(): number }): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const kind of BURST_KINDS) {
    const count = burst[kind.name] ?? 0;
    for (let i = 0; i < count; i++) out.push(templatePayload(kind.opcode, kind.payloadBytes, salt.next()));
  }
  return out;
}
