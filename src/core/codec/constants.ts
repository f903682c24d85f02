// Wire constants of the BC 1.1 transport (transport-layer.md §1–§3, docs/sources.md 2–5).

/** Largest datagram the stock engine builds or accepts (transport-layer.md §9). */
export const MAX_DATAGRAM_BYTES = 512;
/** msg_count is a u8; the stock loops stop at 255 (ack-outbox-deadlock.md §4). */
export const MAX_MESSAGES_PER_DATAGRAM = 255;
export const DATAGRAM_HEADER_BYTES = 2;

export const TYPE_DATA = 0x00;
export const TYPE_ACK = 0x01;
export const TYPE_CONNECT = 0x02;
export const TYPE_CONNECT_ACK = 0x03;
export const TYPE_BOOT = 0x04;
export const TYPE_DISCONNECT = 0x05;
export const TYPE_GAME = 0x32;

/** Types below this use the "low" sequence counters (transport-layer.md §4). */
export const LOW_TYPE_LIMIT = 0x32;

export const FLAG_RELIABLE = 0x8000;
export const FLAG_ORDERED = 0x4000;
/** Only type 0x32 has a fragment bit; for the generic types bit 13 is length. */
export const FLAG_FRAGMENT = 0x2000;
export const GAME_LENGTH_MASK = 0x1fff;
export const GENERIC_LENGTH_MASK = 0x3fff;
/**
 * The largest message the length field holds: a size, not another name for the mask.
 * @alias (tells knip this second name for one value is meant)
 */
export const MAX_GAME_MESSAGE_BYTES = GAME_LENGTH_MASK; // 8191
/** @alias (as above) */
export const MAX_GENERIC_MESSAGE_BYTES = GENERIC_LENGTH_MASK; // 16383

export const ACK_FLAG_FRAGMENT = 0x01;
export const ACK_FLAG_LOW_TYPE = 0x02;

export const PEER_ID_SERVER = 0x01;
export const PEER_ID_FIRST_CLIENT = 0x02;
export const PEER_ID_UNASSIGNED = 0xff;

/** GameSpy queries and replies share the game port, in the clear, and start with '\\'. */
export const GAMESPY_FIRST_BYTE = 0x5c;

/** Labels only: the decoder treats 0x00 and 0x02–0x05 alike (docs/sources.md 3). */
export const TYPE_NAMES: Readonly<Record<number, string>> = {
  [TYPE_DATA]: 'data',
  [TYPE_ACK]: 'ack',
  [TYPE_CONNECT]: 'connect',
  [TYPE_CONNECT_ACK]: 'connectAck',
  [TYPE_BOOT]: 'boot',
  [TYPE_DISCONNECT]: 'disconnect',
  [TYPE_GAME]: 'game',
};

/**
 * The stock client's connect request is captured with type byte 0x03, ConnectAck's
 * type (docs/sources.md 3), so a type-0x03 message the client sends gets this label.
 */
export const CLIENT_CONNECT_LABEL = 'connect (type 0x03 as captured)';

export function isKnownType(type: number): boolean {
  return type === TYPE_GAME || (type >= TYPE_DATA && type <= TYPE_DISCONNECT);
}

export function isLowType(type: number): boolean {
  return type < LOW_TYPE_LIMIT;
}
