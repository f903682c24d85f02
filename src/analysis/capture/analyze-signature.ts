// The reduced events of the fragment-ACK signature (reproduce/signature.ts), taken
// from the wire: the client's first fragmented message, each of its transmissions,
// and the server's ACKs of its seq. Bounded per connection.
import { SIGNATURE_EVENT_BYTES } from './analyze-budget.js';
import { TYPE_ACK, readMessage } from '../../core/codec/index.js';
import type { Located } from '../../core/codec/index.js';
import type { SendEvent } from '../../model/trace/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { ConnectionState } from './analyze-state.js';

/** Reduced events kept per connection for the signature. */
const MAX_SIGNATURE_EVENTS = 200_000;

const EMPTY = new Uint8Array(0);

/** The codec's reading of the (valid) message at bytes[pos], kept without its payload: the bytes are not ours to hold. */
function located(bytes: Uint8Array, pos: number): Located {
  const read = readMessage(bytes, pos, bytes.length) as Located;
  return read.type === TYPE_ACK ? read : { ...read, payload: EMPTY };
}

/** A fragment the client sent: the reduced events of the signature follow its first fragmented message. */
export function signatureFragment(
  c: ConnectionState,
  bytes: Uint8Array,
  pos: number,
  seq: number,
  fragCount: number,
  previous: number,
  t: number,
): void {
  if (c.signatureSeq === null) {
    if (fragCount < 0) return;
    c.signatureSeq = seq;
  }
  if (seq !== c.signatureSeq) return;
  const note = previous > 0 ? SendNote.Retransmit : SendNote.FirstSend;
  signatureEvent(c, {
    kind: 'send',
    timeUs: t,
    client: c.ref.index,
    slot: c.ref.slot,
    from: 'client',
    bytes: EMPTY,
    messages: [located(bytes, pos)],
    notes: [note],
    transmission: [previous],
  });
}

function signatureEvent(c: ConnectionState, event: SendEvent): void {
  if (c.signatureEvents.length >= MAX_SIGNATURE_EVENTS || !c.budget.take(SIGNATURE_EVENT_BYTES)) {
    c.signatureCapped = true;
    return;
  }
  c.signatureEvents.push(event);
}

/** The server's ACK at bytes[pos] of the signature's seq. */
export function signatureAck(c: ConnectionState, bytes: Uint8Array, pos: number, t: number): void {
  signatureEvent(c, {
    kind: 'send',
    timeUs: t,
    client: c.ref.index,
    slot: c.ref.slot,
    from: 'server',
    bytes: EMPTY,
    messages: [located(bytes, pos)],
    notes: [SendNote.Ack],
    transmission: [0],
  });
}
