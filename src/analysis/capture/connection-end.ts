// Two things the analyzer must not misread as transport behaviour
// (docs/captures.md#reading-captures-decode-and-analyze): the server's keepalive echoes, which copy the client's
// keepalive (docs/sources.md 12, 26) and, in some servers, re-use its seq, so they
// look like re-sends; and the server's removal of a client, after which the
// silence towards that client is the removal's, not a dead zone's.
import { usToSeconds } from '../../core/engine/index.js';
import type { Removal } from './analysis-types.js';

/** Distinct client keepalive payloads remembered per connection (the identity rarely changes). */
const MAX_IDENTITIES = 4;
/** Payloads longer than this are not keepalives (the measured one carries 17 bytes, docs/sources.md 26). */
const MAX_IDENTITY_BYTES = 256;
/** Echo seqs remembered per connection, for the client's ACKs of them. */
const MAX_ECHO_SEQS = 1024;
/**
 * Removal by silence: the server sent nothing to the client for at least this long (two keepalive
 * intervals, docs/sources.md 12) while the client went on sending, a reliable message among it.
 */
const REMOVAL_SILENCE_US = 10_000_000;
/** ...and at least this many datagrams. */
const REMOVAL_CLIENT_DATAGRAMS = 3;

/** The client's keepalive payloads on one connection, and the echoes the server sent of them. */
export class KeepaliveEchoes {
  private readonly identities: string[] = [];
  /** The seqs echoes used, with the time of the latest (oldest forgotten past MAX_ECHO_SEQS). */
  readonly seqLastUs = new Map<number, number>();

  /** The client sent a type-0x00 message whose payload is bytes[from, to). */
  clientKeepalive(bytes: Uint8Array, from: number, to: number): void {
    if (to <= from || to - from > MAX_IDENTITY_BYTES) return;
    const id = text(bytes, from, to);
    if (this.identities.includes(id)) return;
    if (this.identities.length >= MAX_IDENTITIES) this.identities.shift();
    this.identities.push(id);
  }

  /** Is the server's type-0x00 payload bytes[from, to) a copy of one of the client's keepalives? */
  isEcho(bytes: Uint8Array, from: number, to: number): boolean {
    if (this.identities.length === 0 || to <= from || to - from > MAX_IDENTITY_BYTES) return false;
    return this.identities.includes(text(bytes, from, to));
  }

  /** An echo went out with `seq` at `timeUs`; true when that seq was already used by an echo. */
  echoSeq(seq: number, timeUs: number): boolean {
    const seen = this.seqLastUs.delete(seq);
    if (!seen && this.seqLastUs.size >= MAX_ECHO_SEQS)
      this.seqLastUs.delete(this.seqLastUs.keys().next().value as number);
    this.seqLastUs.set(seq, timeUs);
    return seen;
  }
}

function text(bytes: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/** What the client sent since the server's last datagram on the connection. */
export class SinceServer {
  datagrams = 0;
  reliables = 0;
  firstUs = Number.NaN;

  serverSent(): void {
    this.datagrams = 0;
    this.reliables = 0;
    this.firstUs = Number.NaN;
  }

  clientSent(timeUs: number, reliables: number): void {
    if (this.datagrams === 0) this.firstUs = timeUs;
    this.datagrams++;
    this.reliables += reliables;
  }
}

/**
 * Removal inferred from silence: the server's last datagram on the connection was at `serverLastUs`,
 * and the client went on sending for REMOVAL_SILENCE_US or more, reliable messages among it, and had not
 * left by then (`endedUs`: the connection's first Disconnect or Boot, NaN for none). Null when the wire
 * does not show that.
 */
export function silentRemoval(
  serverLastUs: number,
  clientLastUs: number,
  since: SinceServer,
  endedUs: number,
): Removal | null {
  if (Number.isNaN(serverLastUs) || Number.isNaN(clientLastUs)) return null;
  if (endedUs < serverLastUs + REMOVAL_SILENCE_US) return null;
  if (since.reliables === 0 || since.datagrams < REMOVAL_CLIENT_DATAGRAMS) return null;
  const silentUs = clientLastUs - serverLastUs;
  if (silentUs < REMOVAL_SILENCE_US) return null;
  return {
    atS: usToSeconds(serverLastUs),
    by: 'silence',
    inferred: true,
    detail:
      `inferred: the server sent nothing more after ${usToSeconds(serverLastUs).toFixed(3)} s while the client sent ` +
      `${since.datagrams} datagrams (${since.reliables} reliable transmissions) over ${usToSeconds(silentUs).toFixed(1)} s`,
  };
}

/** "removed at t=2.124 s (Boot naming slot 2)": the one-line form. */
export function removalText(r: Removal): string {
  return `the server removed the client at t=${r.atS.toFixed(3)} s (${r.detail})`;
}
