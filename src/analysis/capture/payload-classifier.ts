// What each UDP payload of a capture is.
//
// A payload is a BC datagram when it decodes exactly (codec decodeDatagram):
// first as the wire carries it, decrypted with AlbyRules (docs/sources.md 22);
// failing that as plaintext (a `bcsim run --pcap-plaintext` export); failing
// both, in the forms real reimplementations send (docs/sources.md 30, codec
// decodeDialect: the rare path), when it is then read in its stock form. A GameSpy
// query or reply starts with `\` and shares the game's socket (docs/sources.md
// 19): labelled, not an error. Anything else is "other" (counted by reason),
// and a payload under 2 bytes cannot even hold the header.
import { SERVER_PORT } from './addresses.js';
import { GAMESPY_FIRST_BYTE, decodeDatagram, decodeDialect, decryptInto } from '../../core/codec/index.js';
import type { DialectResult } from '../../core/codec/index.js';
import { datagramMessages } from './wire-walk.js';

/** The BC port (docs/sources.md 19), the one the export gives the server. */
export const BC_PORT = SERVER_PORT;
/** LAN discovery scans the ports from the game's up to this one (docs/sources.md 19). */
const BC_PORT_SCAN_LAST = 22201;

export type Reading = 'encrypted' | 'plaintext';

export type Classification =
  | {
      readonly kind: 'bc';
      readonly reading: Reading;
      /** The decrypted bytes (or the plaintext payload): a view valid until the next classification. */
      readonly plain: Uint8Array;
      /** `plain` in the stock form (docs/sources.md 30): the same array unless it was read only in a reimplementation's form. */
      readonly stock: Uint8Array;
      readonly peerId: number;
      readonly messageCount: number;
    }
  | { readonly kind: 'gamespy' }
  | { readonly kind: 'too-short' }
  | { readonly kind: 'other'; readonly reason: OtherReason; readonly detail: string };

export type OtherReason =
  /** On a BC port, but neither reading decodes. */
  | 'undecodable'
  /** Off the BC ports and not a plausible BC datagram. */
  | 'not-bc';

/** The game's port or one LAN discovery scans (22101..22201). */
export function onBcPort(port: number): boolean {
  return port >= BC_PORT && port <= BC_PORT_SCAN_LAST;
}

/**
 * A datagram that decodes is BC when it carries at least one message and a
 * possible peer id; off the BC ports the peer id must also be the server (1),
 * a slot the server can give (2..32) or unassigned (0xFF).
 */
function plausible(peerId: number, messageCount: number, bcPort: boolean): boolean {
  if (messageCount <= 0 || peerId === 0) return false;
  return bcPort || peerId <= 32 || peerId === 0xff;
}

/**
 * Classifies UDP payloads, decrypting into one reused buffer: a capture's
 * millions of datagrams cost no allocation each. `kind` returns what the
 * payload is and leaves the details of a BC datagram in the classifier's
 * fields (until the next call); `classify` wraps them in an object. Never throws.
 */
export class PayloadClassifier {
  private scratch = new Uint8Array(2048);
  /** Of the last BC datagram: its reading, its bytes (a view), peer id and message count. */
  reading: Reading = 'encrypted';
  plain: Uint8Array = new Uint8Array(0);
  /** `plain` in the stock form: `plain` itself, or a new array for a datagram read only in a form of docs/sources.md 30. */
  stock: Uint8Array = new Uint8Array(0);
  peerId = 0;
  messageCount = 0;
  /** Of the last "other" payload: why. */
  otherReason: OtherReason = 'not-bc';
  otherDetail = '';

  /** `bcPort`: one of the payload's ports is 22101..22201. */
  kind(payload: Uint8Array, bcPort: boolean): Classification['kind'] {
    const n = payload.length;
    if (n < 2) return 'too-short';
    if (payload[0] === GAMESPY_FIRST_BYTE) return 'gamespy';
    if (this.scratch.length < n) this.scratch = new Uint8Array(Math.max(n, 2 * this.scratch.length));
    const plain = this.scratch;
    decryptInto(payload, plain, 0);
    const encrypted = datagramMessages(plain, n);
    if (plausible(plain[0], encrypted, bcPort)) return this.bc('encrypted', plain.subarray(0, n), encrypted);
    const asPlain = datagramMessages(payload, n);
    if (plausible(payload[0], asPlain, bcPort)) return this.bc('plaintext', payload, asPlain);
    // The rare path (docs/sources.md 30): a reimplementation's wire forms, in the same order.
    const decrypted = plain.subarray(0, n);
    const dialectEncrypted = decodeDialect(decrypted);
    if (this.plausibleDialect(dialectEncrypted, bcPort))
      return this.bc('encrypted', decrypted, dialectEncrypted.datagram.messageCount, dialectEncrypted.stock);
    const dialectPlain = decodeDialect(payload);
    if (this.plausibleDialect(dialectPlain, bcPort))
      return this.bc('plaintext', payload, dialectPlain.datagram.messageCount, dialectPlain.stock);
    if (!bcPort) return this.other('not-bc', 'not a BC datagram and not on a BC port');
    // The rare path: let the codec say what is wrong with the decrypted reading.
    const decoded = decodeDatagram(plain.subarray(0, n));
    return this.other(
      'undecodable',
      decoded.ok
        ? 'decodes with no messages or peer id 0'
        : `decrypted, offset ${decoded.error.offset}: ${decoded.error.reason}`,
    );
  }

  /** The same, as an object. */
  classify(payload: Uint8Array, bcPort: boolean): Classification {
    const kind = this.kind(payload, bcPort);
    switch (kind) {
      case 'bc':
        return {
          kind,
          reading: this.reading,
          plain: this.plain,
          stock: this.stock,
          peerId: this.peerId,
          messageCount: this.messageCount,
        };
      case 'other':
        return { kind, reason: this.otherReason, detail: this.otherDetail };
      default:
        return { kind };
    }
  }

  private plausibleDialect(result: DialectResult, bcPort: boolean): result is DialectResult & { ok: true } {
    return result.ok && plausible(result.datagram.peerId, result.datagram.messageCount, bcPort);
  }

  private bc(reading: Reading, plain: Uint8Array, messageCount: number, stock: Uint8Array = plain): 'bc' {
    this.reading = reading;
    this.plain = plain;
    this.stock = stock;
    this.peerId = plain[0];
    this.messageCount = messageCount;
    return 'bc';
  }

  private other(reason: OtherReason, detail: string): 'other' {
    this.otherReason = reason;
    this.otherDetail = detail;
    return 'other';
  }
}

const shared = new PayloadClassifier();

/** Classifies one UDP payload (with a shared buffer: `plain` is valid until the next call). Never throws. */
export function classifyPayload(payload: Uint8Array, bcPort: boolean): Classification {
  return shared.classify(payload, bcPort);
}
