// `bcsim decode` names the hashes of a checksum answer (game opcode 0x21), so a
// user can hold them against a server's manifest. A fragment is only a piece of
// the answer: the first one says what it is, the hashes need every piece.
import { TYPE_GAME } from '../../core/codec/index.js';
import type { DataMessage, Located } from '../../core/codec/index.js';
import {
  Opcode,
  checksumAnswerHashes,
  checksumAnswerHead,
  checksumAnswerLines,
  parseChecksumResponse,
  roundLabel,
} from '../../model/traffic/index.js';
import type { ChecksumAnswerHashes } from '../../model/traffic/index.js';

/** What `--json` adds to a message that carries a checksum answer. */
export type ChecksumAnswerJson =
  | ChecksumAnswerHashes
  | { readonly fragment: 0; readonly fragments: number | null; readonly round: number | null }
  | { readonly error: { readonly offset: number; readonly reason: string } };

/** Lines a datagram's answer can fill: far more than its 512 bytes hold. */
const MAX_LINES = 1024;

/** The checksum answer `m` carries, or null when it carries none (or is a later fragment, which cannot tell). */
export function checksumAnswerOf(m: Located): ChecksumAnswerJson | null {
  if (m.type !== TYPE_GAME) return null;
  const data = m as DataMessage;
  if (data.payload[0] !== Opcode.ChecksumResponse) return null;
  if (data.fragment) {
    if (data.fragIndex !== 0) return null;
    return { fragment: 0, fragments: data.fragCount, round: data.payload.length > 1 ? data.payload[1] : null };
  }
  const parsed = parseChecksumResponse(data.payload);
  return parsed.ok ? checksumAnswerHashes(parsed.value) : { error: parsed.error };
}

/** The listing's lines under the message. */
export function checksumAnswerText(answer: ChecksumAnswerJson, indent: string): string[] {
  if ('error' in answer)
    return [
      `${indent}checksum answer (opcode 0x21) that does not parse: offset ${answer.error.offset}: ${answer.error.reason}`,
    ];
  if ('fragment' in answer) {
    const of = answer.fragments === null ? '' : ` of ${answer.fragments}`;
    const round = answer.round === null ? '' : `, round ${roundLabel(answer.round)}`;
    return [
      `${indent}fragment 0${of} of a checksum answer (opcode 0x21${round}): its hashes need every fragment (bcsim analyze puts a capture's together)`,
    ];
  }
  return [
    `${indent}checksum answer (opcode 0x21), ${checksumAnswerHead(answer)}`,
    ...checksumAnswerLines(answer, `${indent}  `, MAX_LINES),
  ];
}
