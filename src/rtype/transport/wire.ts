// The R-Type wire (rtype-ack-system.md "Packet Structure with ACK"; docs/sources.md 24).
// A datagram is a packed 12-byte header copied raw from x86 memory, so little-endian:
//   [id u32][ack u32][packetNbr u8][totalPacketNbr u8][dataSize u16]
// followed by dataSize payload bytes written by an SFML Packet, so big-endian.
// A client registers with a zero-length datagram. Encoders throw on an impossible
// field (a caller's bug); decoders never throw and return typed errors with offsets.

export const HEADER_BYTES = 12;
/** Death notification (rtype-ack-system.md "Death Notification (0x0B)"): opcode + u32 entity id. */
export const OPCODE_DEAD = 0x0b;
/**
 * Position update. The spec shows `updatePosition(id, x, y)` without its bytes; we
 * take opcode 0x07 (the position opcode of R-Type's own UDP protocol note) and write
 * id as u32 and x, y as float32, all big-endian like every SFML payload field.
 */
export const OPCODE_POSITION = 0x07;
export const DEATH_PAYLOAD_BYTES = 5;
export const POSITION_PAYLOAD_BYTES = 13;
export const DEATH_DATAGRAM_BYTES = HEADER_BYTES + DEATH_PAYLOAD_BYTES;
export const POSITION_DATAGRAM_BYTES = HEADER_BYTES + POSITION_PAYLOAD_BYTES;
/**
 * The TCP confirmation, "[ACK Marker] [ACK ID (4 bytes)]" (rtype-ack-system.md §3).
 * The spec gives no marker value; we use 0x41 ('A'), and the id big-endian (SFML).
 */
export const TCP_ACK_MARKER = 0x41;
export const TCP_ACK_BYTES = 5;

/** The 12-byte header. `ack` 0 means "no ACK tracking" (rtype-ack-system.md "Usage"). */
export interface RtypeHeader {
  readonly id: number;
  readonly ack: number;
  readonly packetNbr: number;
  readonly totalPacketNbr: number;
  readonly dataSize: number;
}

export type RtypeMessage =
  | { readonly kind: 'death'; readonly entityId: number }
  | { readonly kind: 'position'; readonly entityId: number; readonly x: number; readonly y: number };

export type RtypeDatagram =
  | { readonly kind: 'registration' }
  | { readonly kind: 'packet'; readonly header: RtypeHeader; readonly message: RtypeMessage };

export type WireErrorCode =
  | 'truncated-header'
  | 'data-size-mismatch'
  | 'empty-payload'
  | 'unknown-opcode'
  | 'truncated-payload'
  | 'trailing-bytes'
  | 'bad-marker'
  | 'bad-length';

export interface WireError {
  readonly ok: false;
  readonly code: WireErrorCode;
  /** Byte offset where the problem was found. */
  readonly offset: number;
  readonly reason: string;
}

export type DecodeResult<T> = ({ readonly ok: true } & T) | WireError;

/** Header fields a sender chooses; dataSize follows from the payload. */
export interface HeaderFields {
  readonly id: number;
  readonly ack: number;
  /** Single datagrams are packet 0 of 1 (we model no fragmentation). */
  readonly packetNbr?: number;
  readonly totalPacketNbr?: number;
}

function fail(code: WireErrorCode, offset: number, reason: string): WireError {
  return { ok: false, code, offset, reason };
}

function checkUint(name: string, value: number, max: number): void {
  if (!(Number.isInteger(value) && value >= 0 && value <= max))
    throw new Error(`rtype wire: ${name} ${value} is not an integer in [0, ${max}]`);
}

/** Encodes one packet: header (LE) then the message (BE). */
export function encodePacket(fields: HeaderFields, message: RtypeMessage): Uint8Array {
  const payloadBytes = message.kind === 'death' ? DEATH_PAYLOAD_BYTES : POSITION_PAYLOAD_BYTES;
  const bytes = new Uint8Array(HEADER_BYTES + payloadBytes);
  const view = new DataView(bytes.buffer);
  writeHeader(view, { ...fields, dataSize: payloadBytes });
  checkUint('entityId', message.entityId, 0xffff_ffff);
  if (message.kind === 'death') {
    bytes[12] = OPCODE_DEAD;
    view.setUint32(13, message.entityId, false);
  } else {
    bytes[12] = OPCODE_POSITION;
    view.setUint32(13, message.entityId, false);
    view.setFloat32(17, message.x, false);
    view.setFloat32(21, message.y, false);
  }
  return bytes;
}

/** The 17-byte death notification. */
export function encodeDeath(fields: HeaderFields, entityId: number): Uint8Array {
  return encodePacket(fields, { kind: 'death', entityId });
}

/** The zero-length registration datagram (docs/sources.md 24). */
export function encodeRegistration(): Uint8Array {
  return new Uint8Array(0);
}

export function encodeTcpAck(ackId: number): Uint8Array {
  checkUint('ackId', ackId, 0xffff_ffff);
  const bytes = new Uint8Array(TCP_ACK_BYTES);
  bytes[0] = TCP_ACK_MARKER;
  new DataView(bytes.buffer).setUint32(1, ackId, false);
  return bytes;
}

function writeHeader(view: DataView, h: HeaderFields & { readonly dataSize: number }): void {
  const packetNbr = h.packetNbr ?? 0;
  const total = h.totalPacketNbr ?? 1;
  checkUint('id', h.id, 0xffff_ffff);
  checkUint('ack', h.ack, 0xffff_ffff);
  checkUint('packetNbr', packetNbr, 0xff);
  checkUint('totalPacketNbr', total, 0xff);
  checkUint('dataSize', h.dataSize, 0xffff);
  view.setUint32(0, h.id, true);
  view.setUint32(4, h.ack, true);
  view.setUint8(8, packetNbr);
  view.setUint8(9, total);
  view.setUint16(10, h.dataSize, true);
}

/** Reads the 12-byte header alone (the server's network thread does this first). */
export function decodeHeader(bytes: Uint8Array): DecodeResult<{ readonly header: RtypeHeader }> {
  if (bytes.length < HEADER_BYTES)
    return fail('truncated-header', bytes.length, `header needs ${HEADER_BYTES} bytes, datagram has ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header: RtypeHeader = {
    id: view.getUint32(0, true),
    ack: view.getUint32(4, true),
    packetNbr: view.getUint8(8),
    totalPacketNbr: view.getUint8(9),
    dataSize: view.getUint16(10, true),
  };
  return { ok: true, header };
}

/** A whole datagram: registration (zero length) or header plus one message. */
export function decodeDatagram(bytes: Uint8Array): DecodeResult<{ readonly datagram: RtypeDatagram }> {
  if (bytes.length === 0) return { ok: true, datagram: { kind: 'registration' } };
  const head = decodeHeader(bytes);
  if (!head.ok) return head;
  const header = head.header;
  const payloadBytes = bytes.length - HEADER_BYTES;
  if (header.dataSize !== payloadBytes)
    return fail('data-size-mismatch', 10, `dataSize says ${header.dataSize} bytes, ${payloadBytes} follow the header`);
  if (payloadBytes === 0) return fail('empty-payload', HEADER_BYTES, 'no opcode after the header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const opcode = bytes[HEADER_BYTES];
  const need = opcode === OPCODE_DEAD ? DEATH_PAYLOAD_BYTES : opcode === OPCODE_POSITION ? POSITION_PAYLOAD_BYTES : -1;
  if (need < 0) return fail('unknown-opcode', HEADER_BYTES, `unknown opcode 0x${opcode.toString(16).padStart(2, '0')}`);
  if (payloadBytes < need)
    return fail(
      'truncated-payload',
      bytes.length,
      `opcode 0x${opcode.toString(16)} needs ${need} payload bytes, has ${payloadBytes}`,
    );
  if (payloadBytes > need)
    return fail('trailing-bytes', HEADER_BYTES + need, `${payloadBytes - need} bytes after the message`);
  const entityId = view.getUint32(13, false);
  const message: RtypeMessage =
    opcode === OPCODE_DEAD
      ? { kind: 'death', entityId }
      : { kind: 'position', entityId, x: view.getFloat32(17, false), y: view.getFloat32(21, false) };
  return { ok: true, datagram: { kind: 'packet', header, message } };
}

export function decodeTcpAck(bytes: Uint8Array): DecodeResult<{ readonly ackId: number }> {
  if (bytes.length !== TCP_ACK_BYTES)
    return fail(
      'bad-length',
      Math.min(bytes.length, TCP_ACK_BYTES),
      `a TCP confirmation is ${TCP_ACK_BYTES} bytes, got ${bytes.length}`,
    );
  if (bytes[0] !== TCP_ACK_MARKER)
    return fail('bad-marker', 0, `marker 0x${bytes[0].toString(16)} is not 0x${TCP_ACK_MARKER.toString(16)}`);
  return { ok: true, ackId: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1, false) };
}
