// `no-repeated-processing`: no reliable message of ours was delivered twice to
// the counterpart's game layer, as far as the wire shows.
//
// What the wire can show: a request that the game layer answers exactly once.
// The join is made of such pairs (src/model/traffic/join.ts, docs/sources.md J1),
// listed in REQUEST_PAIRS. However many times we
// transmit one request (one seq), a counterpart that delivers it once sends
// one reply, perhaps retransmitted under one seq. A second distinct reliable
// reply (another seq, never seen before) before our next request of that kind means the request
// reached its game layer twice: e.g. a retransmitted fragment reassembled
// into a second copy of the message, or a duplicate taken for a new message.
//
// What it cannot show: repeated delivery of a message nobody answers (game
// events, chat, StateUpdates), or one the game layer tolerates silently; a
// reply the game layer deduplicates itself. Those leave no trace on the wire.
import { Opcode } from '../../model/traffic/index.js';
import type { Judge, JudgeContext, OpenEvidence } from './judge.js';
import { gameOpcode, isConnectReply, isConnectRequest, isReliableData } from './wire-keys.js';
import type { ReliableMessage, WireMessageEvent } from './wire-keys.js';

export interface RequestPair {
  readonly request: string;
  readonly reply: string;
  readonly isRequest: (message: ReliableMessage, peerId: number) => boolean;
  readonly isReply: (message: ReliableMessage, peerId: number) => boolean;
}

const game =
  (opcode: number) =>
  (message: ReliableMessage): boolean =>
    gameOpcode(message) === opcode;

/** Requests the counterpart answers once, whichever side we play (only the pairs our side sends apply). */
export const REQUEST_PAIRS: readonly RequestPair[] = [
  { request: 'Connect', reply: 'ConnectAck', isRequest: isConnectRequest, isReply: isConnectReply },
  {
    request: 'ChecksumRequest',
    reply: 'ChecksumResponse',
    isRequest: game(Opcode.ChecksumRequest),
    isReply: game(Opcode.ChecksumResponse),
  },
  // Each checksum response but the last (round 0xFF) draws the next round's request; the last draws none.
  {
    request: 'ChecksumResponse',
    reply: 'ChecksumRequest',
    isRequest: game(Opcode.ChecksumResponse),
    isReply: game(Opcode.ChecksumRequest),
  },
  {
    request: 'GameInit',
    reply: 'NewPlayerInGame',
    isRequest: game(Opcode.GameInit),
    isReply: game(Opcode.NewPlayerInGame),
  },
  {
    request: 'NewPlayerInGame',
    reply: 'MissionInit',
    isRequest: game(Opcode.NewPlayerInGame),
    isReply: game(Opcode.MissionInit),
  },
];

/** Distinct reply seqs remembered per request: 2 make the violation, more only the count. */
const MAX_REPLY_SEQS = 16;
/** Reply seqs remembered per pair, so a late retransmission of an earlier reply is not taken for a new one. */
const MAX_KNOWN_REPLIES = 256;

interface OpenRequest {
  readonly seq: number;
  transmissions: number;
  readonly replySeqs: number[];
  /** Distinct replies past MAX_REPLY_SEQS. */
  moreReplies: number;
  evidence: OpenEvidence | null;
}

export class RepliesJudge implements Judge {
  /** The latest request of each pair: memory is constant per connection. */
  private readonly open: Array<OpenRequest | null> = REQUEST_PAIRS.map(() => null);
  /** Per pair, the latest reply seqs seen (oldest first): a stock client re-sends its fragmented reply for the whole session (docs/sources.md 14). */
  private readonly knownReplies: number[][] = REQUEST_PAIRS.map(() => []);

  constructor(private readonly context: JudgeContext) {}

  observe(event: WireMessageEvent): void {
    const { message, peerId } = event;
    if (!isReliableData(message)) return;
    REQUEST_PAIRS.forEach((pair, i) => {
      if (event.from === 'local' && pair.isRequest(message, peerId)) {
        const current = this.open[i];
        if (current !== null && current.seq === message.seq) {
          current.transmissions++;
          return;
        }
        if (current !== null) this.close(i);
        this.context.tally.seen++;
        this.open[i] = { seq: message.seq, transmissions: 1, replySeqs: [], moreReplies: 0, evidence: null };
      } else if (event.from === 'remote' && pair.isReply(message, peerId)) {
        const known = this.knownReplies[i];
        if (known.includes(message.seq)) return; // a retransmission of a reply already counted
        known.push(message.seq);
        if (known.length > MAX_KNOWN_REPLIES) known.shift();
        const current = this.open[i];
        if (current === null) return;
        if (current.replySeqs.length < MAX_REPLY_SEQS) current.replySeqs.push(message.seq);
        else current.moreReplies++;
        if (current.replySeqs.length === 2 && current.moreReplies === 0) {
          current.evidence = this.context.violate(
            event.timeUs,
            current.seq,
            null,
            this.detail(pair, current),
            event.recordIndex,
          );
        }
      }
    });
  }

  private close(i: number): void {
    const current = this.open[i];
    if (current === null) return;
    this.open[i] = null;
    // A request nobody answered shows nothing about repeated processing.
    if (current.replySeqs.length === 0) return;
    this.context.tally.checked++;
    if (current.evidence !== null) current.evidence.detail = this.detail(REQUEST_PAIRS[i], current);
  }

  private detail(pair: RequestPair, request: OpenRequest): string {
    const replies = request.replySeqs.length + request.moreReplies;
    const more = request.moreReplies > 0 ? ` and ${request.moreReplies} more` : '';
    return (
      `Our ${pair.request} seq ${request.seq} (sent ${request.transmissions === 1 ? 'once' : `${request.transmissions} times`}) drew ${replies} distinct reliable ${pair.reply} replies ` +
      `(seqs ${request.replySeqs.join(', ')}${more}): the counterpart processed it more than once.`
    );
  }

  /** Requests stay open until the next of their kind: nothing goes idle. */
  sweep(): void {}

  finish(): void {
    REQUEST_PAIRS.forEach((_, i) => this.close(i));
  }
}
