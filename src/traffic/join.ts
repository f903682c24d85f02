// The measured join sequence on loopback (DECISIONS.md "Join sequence on loopback").
// Each step is a reply: it starts when the previous step's last message has been
// delivered to the replying side, after a think time. Sizes are whole-message
// bytes on the wire; step 8's ~1000-byte payload splits into 3 fragments.
//
// Server think times are 0 (the reply is queued while the message is dispatched,
// so it leaves in the next update with the ACK made for it: DECISIONS.md 16, the
// captured "ACK 0 with request r1", "ACK 3 with request 0xFF"), except request r2,
// which the capture shows alone (seq 2, no ACK): its think time outlasts a server update.
import { TYPE_CONNECT_ACK, TYPE_DATA, TYPE_GAME } from '../codec/index.js';
import type { DataType } from '../codec/index.js';
import type { Role } from '../transport/index.js';
import { CAPTURED, Opcode, filledPayload } from './payloads.js';

export interface JoinMessage {
  readonly label: string;
  /** The ConnectAck carries the slot the server assigned (issue 12). */
  readonly slotAssignment?: true;
  readonly type: DataType;
  readonly reliable: boolean;
  readonly ordered: boolean;
  readonly payload: Uint8Array;
}

export interface JoinStep {
  readonly step: number;
  readonly from: Role;
  /** Think time after the trigger was delivered. */
  readonly delayMs: number;
  /** Step whose last message triggers this one; null for the first. */
  readonly after: number | null;
  readonly messages: readonly JoinMessage[];
}

/**
 * A reliable, unordered 0x32 message of `wireBytes` total (5-byte header): the
 * captured join messages carry flags high byte 0x80/0x81, not ordered.
 */
function game(label: string, opcode: number, wireBytes: number, salt: number): JoinMessage {
  return { label, type: TYPE_GAME, reliable: true, ordered: false, payload: filledPayload(opcode, wireBytes - 5, salt) };
}

function captured(label: string, payload: Uint8Array): JoinMessage {
  return { label, type: TYPE_GAME, reliable: true, ordered: false, payload };
}

/** Payload bytes of the round-2 checksum response: 405 + 405 + 190 with 405-byte chunks. */
export const CHECKSUM_R2_RESPONSE_PAYLOAD_BYTES = 1000;

export const JOIN_STEPS: readonly JoinStep[] = [
  {
    step: 1,
    from: 'client',
    delayMs: 0,
    after: null,
    // Captures show the stock client's connect request with type byte 0x03 (DECISIONS.md 3).
    messages: [{ label: 'Connect', type: TYPE_CONNECT_ACK, reliable: true, ordered: true, payload: filledPayload(0xff, 10, 1) }],
  },
  {
    step: 2,
    from: 'server',
    delayMs: 0,
    after: 1,
    messages: [
      { label: 'ConnectAck', type: TYPE_CONNECT_ACK, reliable: true, ordered: true, payload: CAPTURED.connectAckSlot2, slotAssignment: true },
      captured('ChecksumRequest r0', CAPTURED.checksumRequestR0),
    ],
  },
  {
    step: 3,
    from: 'client',
    delayMs: 5,
    after: 2,
    // A 22-byte keepalive; the server's transport echoes it.
    messages: [{ label: 'Keepalive', type: TYPE_DATA, reliable: true, ordered: true, payload: filledPayload(0x02, 17, 3) }],
  },
  { step: 4, from: 'client', delayMs: 20, after: 2, messages: [captured('ChecksumResponse r0', CAPTURED.checksumResponseR0)] },
  { step: 5, from: 'server', delayMs: 0, after: 4, messages: [game('ChecksumRequest r1', Opcode.ChecksumRequest, 32, 5)] },
  { step: 6, from: 'client', delayMs: 20, after: 5, messages: [game('ChecksumResponse r1', Opcode.ChecksumResponse, 22, 6)] },
  { step: 7, from: 'server', delayMs: 10, after: 6, messages: [captured('ChecksumRequest r2', CAPTURED.checksumRequestR2)] },
  {
    step: 8,
    from: 'client',
    delayMs: 700,
    after: 7,
    messages: [
      {
        label: 'ChecksumResponse r2 (fragmented)',
        type: TYPE_GAME,
        reliable: true,
        ordered: false,
        payload: filledPayload(Opcode.ChecksumResponse, CHECKSUM_R2_RESPONSE_PAYLOAD_BYTES, 8),
      },
    ],
  },
  { step: 9, from: 'server', delayMs: 0, after: 8, messages: [game('ChecksumRequest r3', Opcode.ChecksumRequest, 33, 9)] },
  { step: 10, from: 'client', delayMs: 20, after: 9, messages: [game('ChecksumResponse r3', Opcode.ChecksumResponse, 46, 10)] },
  { step: 11, from: 'server', delayMs: 0, after: 10, messages: [game('ChecksumRequest 0xFF', Opcode.ChecksumRequest, 36, 11)] },
  { step: 12, from: 'client', delayMs: 50, after: 11, messages: [game('ChecksumResponse 0xFF', Opcode.ChecksumResponse, 273, 12)] },
  {
    step: 13,
    from: 'server',
    delayMs: 0,
    after: 12,
    messages: [game('0x28', Opcode.JoinMarker, 6, 13), game('Settings', Opcode.Settings, 51, 14), game('GameInit', Opcode.GameInit, 6, 15)],
  },
  { step: 14, from: 'client', delayMs: 30, after: 13, messages: [game('NewPlayerInGame', Opcode.NewPlayerInGame, 7, 16)] },
  {
    step: 15,
    from: 'server',
    delayMs: 0,
    after: 14,
    // Sizes not in the table; small reliable game messages.
    messages: [game('MissionInit', Opcode.MissionInit, 20, 17), game('DeletePlayerUI', Opcode.DeletePlayerUI, 8, 18)],
  },
];

/** A join message's payload on a connection whose slot is `slot` (null: not yet assigned). */
export function joinPayload(message: JoinMessage, slot: number | null): Uint8Array {
  if (message.slotAssignment && slot !== null) return Uint8Array.of(slot);
  return message.payload;
}

/** Ship selection after the join, before StateUpdates start (DECISIONS.md join notes). */
export const SHIP_SELECTION_MS = 4500;
export const STATE_UPDATES_START_AFTER_SELECTION_MS = 150;
