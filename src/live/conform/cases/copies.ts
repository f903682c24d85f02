// What the ACK cases share: telling a copy of a server message from a new one,
// waiting for it, knowing when the server read a witnessed datagram, and going on
// with the join from a request already here.
import { TYPE_GAME } from '../../../core/codec/index.js';
import type { DataMessage } from '../../../core/codec/index.js';
import { checksumAnswer, parseChecksumRequest, roundLabel } from '../../../model/traffic/index.js';
import type { CaseContext } from '../case-types.js';
import type { ConformClient, ServerMessage } from '../client.js';
import { isData } from '../client.js';
import { messageInBrief } from '../describe.js';
import { awaitRequest, sendGame } from '../join.js';
import type { JoinProgress } from '../join.js';
import { isAckOf } from '../session-end.js';

/** Two messages of the server with the same key: one is a copy of the other. */
export function sameKey(a: DataMessage, b: DataMessage): boolean {
  return (
    a.reliable &&
    a.type === b.type &&
    a.seq === b.seq &&
    a.fragIndex === b.fragIndex &&
    (a.type === TYPE_GAME ? a.payload[0] === b.payload[0] : true)
  );
}

/** Waits up to `ms` past `since` for a copy of `first`. */
export async function waitCopy(
  client: ConformClient,
  first: ServerMessage,
  since: number,
  ms: number,
): Promise<ServerMessage | null> {
  const f = first.message as DataMessage;
  return client.waitFor(
    (m) => m.timeMs > since && m !== first && isData(m.message) && sameKey(m.message, f),
    ms,
    since,
  );
}

export function describe(m: ServerMessage): string {
  return messageInBrief(m.message);
}

/**
 * When the server had read our datagram with `witness` in it: the arrival of the
 * witness's ACK (or `sentAt`, when none came: the campaign then fails the case).
 */
export async function readAt(client: ConformClient, witness: DataMessage, sentAt: number, t: CaseContext['timings']) {
  const ack = await client.waitFor((m) => isAckOf(m.message, witness), t.ackWithinMs, sentAt);
  return ack?.timeMs ?? sentAt;
}

/** Answers `request` (already here) from the manifest and waits for the request of round `next`. */
export async function answerThen(
  client: ConformClient,
  ctx: CaseContext,
  progress: JoinProgress,
  request: ServerMessage,
  next: number,
): Promise<ServerMessage | null> {
  const parsed = parseChecksumRequest(isData(request.message) ? request.message.payload : new Uint8Array(0));
  if (!parsed.ok) return null;
  const since = client.now;
  sendGame(client, checksumAnswer(ctx.manifest, parsed.value), `ChecksumResponse ${roundLabel(parsed.value.round)}`);
  return awaitRequest(client, ctx.manifest, progress, next, { timings: ctx.timings, since, answered: request });
}
