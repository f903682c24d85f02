// What a server does with checksum answers (docs/sources.md 31). Every server
// parses them: an answer must be a well-formed tree of the round that was
// asked ('form'). A server that knows the game's files also matches every hash
// against its manifest ('hashes'): a real client answers with its real files'
// hashes, which bcsim's stand-ins cannot match, so that is opt-in. `bcsim peer
// server` removes a client whose answer fails (a Boot first, PeerTransport.kick).
// A round a manifest file lacks is bcsim's stand-in, which no real client's files
// match: it is checked by form alone.
import { TYPE_GAME } from '../../core/codec/index.js';
import {
  Opcode,
  findRound,
  parseChecksumRequest,
  parseChecksumResponse,
  responseMismatch,
  roundLabel,
} from '../../model/traffic/index.js';
import type { ChecksumManifest } from '../../model/traffic/index.js';

/** Rounds asked and not yet answered, kept per client (a join asks five). */
export const MAX_ROUNDS_ASKED = 16;

/** How closely a server checks checksum answers. */
export type ChecksumChecks = 'form' | 'hashes';
export const CHECKSUM_CHECKS: readonly ChecksumChecks[] = ['form', 'hashes'];

export class ChecksumCheck {
  private readonly asked = new Map<number, number[]>();

  constructor(
    private readonly manifest: ChecksumManifest,
    private readonly checks: ChecksumChecks = 'form',
    private readonly formOnlyRounds: readonly number[] = [],
  ) {}

  /** The server sent `payload` to `client`: a checksum request is remembered. */
  sent(client: number, type: number, payload: Uint8Array): void {
    if (type !== TYPE_GAME || payload[0] !== Opcode.ChecksumRequest) return;
    const request = parseChecksumRequest(payload);
    if (!request.ok) return;
    const list = this.asked.get(client) ?? [];
    if (list.length >= MAX_ROUNDS_ASKED) list.shift();
    list.push(request.value.round);
    this.asked.set(client, list);
  }

  /** A new client took `client`'s place. */
  forget(client: number): void {
    this.asked.delete(client);
  }

  /** A reliable message `client` delivered: null when it is not a checksum answer or a right one, else why it is refused. */
  refusal(client: number, type: number, payload: Uint8Array): string | null {
    if (type !== TYPE_GAME || payload[0] !== Opcode.ChecksumResponse) return null;
    const round = this.asked.get(client)?.shift();
    if (round === undefined) return 'a checksum answer that no request asked for';
    const parsed = parseChecksumResponse(payload);
    if (!parsed.ok)
      return `round ${roundLabel(round)}: the answer does not parse at offset ${parsed.error.offset}: ${parsed.error.reason}`;
    if (parsed.value.round !== round)
      return `round ${roundLabel(round)} was asked, the answer is for round ${roundLabel(parsed.value.round)}`;
    const expected = findRound(this.manifest, round);
    if (expected === null || this.checks === 'form' || this.formOnlyRounds.includes(round)) return null;
    const mismatch = responseMismatch(this.manifest, expected, parsed.value);
    return mismatch === null ? null : `round ${roundLabel(round)}: ${mismatch}`;
  }
}
