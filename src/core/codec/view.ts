// Read-only views of decoded messages: the JSON shape of `bcsim decode --json`
// and a one-line human description used by decode and trace.
import {
  CLIENT_CONNECT_LABEL,
  FLAG_FRAGMENT,
  FLAG_ORDERED,
  FLAG_RELIABLE,
  PEER_ID_SERVER,
  PEER_ID_UNASSIGNED,
  TYPE_ACK,
  TYPE_CONNECT,
  TYPE_CONNECT_ACK,
  TYPE_GAME,
  TYPE_NAMES,
} from './constants.js';
import { hex2 } from './message.js';
import { toHex } from './hex.js';
import { ackBytesOfFlags, ackFlagsFragment, ackFlagsLowType, ackFlagsOther } from './wire.js';
import type { AckMessage, DataMessage, DecodeResult, Located, Message } from './types.js';
import { formOf } from './dialect.js';
import type { Deviation, DialectResult, MessageForm } from './dialect.js';

export interface AckJson {
  offset: number;
  type: 1;
  name: 'ack';
  size: number;
  seq: number;
  flags: number;
  fragment: boolean;
  fragIndex: number | null;
  lowType: boolean;
}

export interface DataJson {
  offset: number;
  type: number;
  name: string;
  size: number;
  reliable: boolean;
  ordered: boolean;
  fragment: boolean;
  seq: number | null;
  fragIndex: number | null;
  fragCount: number | null;
  payloadHex: string;
  /** Only for a message read in a form of docs/sources.md 30: its type, length and flags bytes as sent. */
  wireForm?: MessageForm;
}

export interface DatagramJson {
  ok: boolean;
  length: number;
  peerId: number | null;
  messageCount: number | null;
  messages: Array<AckJson | DataJson>;
  error: { offset: number; reason: string } | null;
}

/** `bcsim decode --json` of a dialect reading: the deviations, and the stock form when it differs. */
export interface DialectDatagramJson extends DatagramJson {
  deviations: Deviation[];
  stockHex: string | null;
}

/**
 * A message's `name` in JSON: its type's name, except the client's connect
 * request, which is captured with ConnectAck's type byte 0x03 (docs/sources.md 3)
 * and is `connect` here as in the text (CLIENT_CONNECT_LABEL).
 */
export function messageName(type: number, context: SenderContext = {}): string {
  return isClientConnect(type, context) ? TYPE_NAMES[TYPE_CONNECT] : TYPE_NAMES[type];
}

/** `context`: who sent it, when known, which names a type-0x03 message (messageName). */
export function messageToJson(message: Located, context: SenderContext = {}): AckJson | DataJson {
  if (message.type === TYPE_ACK) {
    return {
      offset: message.offset,
      type: 1,
      name: 'ack',
      size: message.size,
      seq: message.seq,
      flags: message.flags,
      fragment: ackFlagsFragment(message.flags),
      fragIndex: message.fragIndex,
      lowType: ackFlagsLowType(message.flags),
    };
  }
  return {
    offset: message.offset,
    type: message.type,
    name: messageName(message.type, context),
    size: message.size,
    reliable: message.reliable,
    ordered: message.ordered,
    fragment: message.fragment,
    seq: message.seq,
    fragIndex: message.fragIndex,
    fragCount: message.fragCount,
    payloadHex: toHex(message.payload, ''),
  };
}

/** messageToJson, with the wire form of a message read in a form of docs/sources.md 30. */
export function formMessageToJson(
  message: Located,
  form: MessageForm | null,
  context: SenderContext = {},
): AckJson | DataJson {
  const json = messageToJson(message, context);
  return form === null || json.type === 1 ? json : { ...json, wireForm: form };
}

export function decodeResultToJson(bytes: Uint8Array, result: DecodeResult): DatagramJson {
  const source = result.ok ? result.datagram : result.partial;
  return {
    ok: result.ok,
    length: bytes.length,
    peerId: source.peerId,
    messageCount: source.messageCount,
    messages: source.messages.map((m) => messageToJson(m, { peerId: source.peerId })),
    error: result.ok ? null : { offset: result.error.offset, reason: result.error.reason },
  };
}

export function dialectResultToJson(bytes: Uint8Array, result: DialectResult): DialectDatagramJson {
  if (!result.ok) return { ...decodeResultToJson(bytes, result), deviations: [], stockHex: null };
  const d = result.datagram;
  return {
    ok: true,
    length: bytes.length,
    peerId: d.peerId,
    messageCount: d.messageCount,
    messages: d.messages.map((m, i) => formMessageToJson(m, formOf(result, i), { peerId: d.peerId })),
    error: null,
    deviations: [...result.deviations],
    stockHex: result.stock === bytes ? null : toHex(result.stock, ''),
  };
}

export function peerLabel(peerId: number): string {
  if (peerId === PEER_ID_SERVER) return 'server';
  if (peerId === PEER_ID_UNASSIGNED) return 'unassigned';
  if (peerId === 0) return 'invalid';
  return `client slot ${peerId}`;
}

/** The flags_len word of a data message as it appears on the wire. */
export function flagsLenOf(message: DataMessage, size: number): number {
  return (
    (message.reliable ? FLAG_RELIABLE : 0) |
    (message.ordered ? FLAG_ORDERED : 0) |
    (message.fragment ? FLAG_FRAGMENT : 0) |
    size
  );
}

/** Who sent a message, when known: it decides the label of type 0x03. */
export interface SenderContext {
  /** The peer_id byte of the datagram that carried the message; 0xFF means a client without a slot. */
  readonly peerId?: number | null;
  /** The sender is known to be the client (a trace knows; a lone datagram does not). */
  readonly sentByClient?: boolean;
  /** The message was read in a form of docs/sources.md 30: its wire bytes are shown instead of a flags_len. */
  readonly form?: MessageForm | null;
}

/** True when a type-0x03 message is the client's connect request rather than the server's ConnectAck. */
export function isClientConnect(type: number, context: SenderContext = {}): boolean {
  return type === TYPE_CONNECT_ACK && (context.sentByClient === true || context.peerId === PEER_ID_UNASSIGNED);
}

/** "ack seq=2 frag=1 [fragment]" or "game reliable seq=2 frag=0/3 len=412 flags_len=0xA19C". */
export function describeMessage(message: Message, size: number, context: SenderContext = {}): string {
  if (message.type === TYPE_ACK) return describeAck(message);
  return describeData(message, size, context);
}

function describeAck(ack: AckMessage): string {
  const bits: string[] = [];
  if (ackFlagsFragment(ack.flags)) bits.push('fragment');
  if (ackFlagsLowType(ack.flags)) bits.push('low-type');
  if (ackFlagsOther(ack.flags) !== 0) bits.push(`other bits 0x${hex2(ackFlagsOther(ack.flags))}`);
  const frag = ack.fragIndex === null ? '' : ` frag=${ack.fragIndex}`;
  return `ack seq=${ack.seq}${frag} flags=0x${hex2(ack.flags)}${bits.length ? ` (${bits.join(', ')})` : ''} [${ackBytesOfFlags(ack.flags)} bytes]`;
}

function describeData(message: DataMessage, size: number, context: SenderContext): string {
  const connect = isClientConnect(message.type, context);
  const name = connect ? CLIENT_CONNECT_LABEL : messageName(message.type);
  const flags: string[] = [];
  if (message.reliable) flags.push('reliable');
  if (message.ordered) flags.push('ordered');
  if (message.fragment) flags.push('fragment');
  const flagsLen = flagsLenOf(message, size);
  const seq = message.seq === null ? '' : ` seq=${message.seq}`;
  let frag = '';
  if (message.fragIndex !== null)
    frag =
      message.fragCount !== null ? ` frag=${message.fragIndex}/${message.fragCount}` : ` frag=${message.fragIndex}`;
  const form = context.form ?? null;
  const wireType = form === null ? message.type : form.typeByte;
  const typeByte = (message.type === TYPE_GAME || connect) && wireType === message.type ? '' : ` (0x${hex2(wireType)})`;
  const header =
    form === null
      ? `flags_len=0x${flagsLen.toString(16).padStart(4, '0').toUpperCase()}`
      : `length_u8=${form.lengthByte} flags=${form.flagsByte === null ? 'none' : `0x${hex2(form.flagsByte)}`}`;
  return `${name}${typeByte} ${flags.length ? flags.join('+') : 'unreliable'}${seq}${frag} len=${size} ${header} payload=${message.payload.length}B`;
}
