// `fragment-acks` and `ack-within`: every reliable message (or fragment) we
// sent must be ACKed by the counterpart within a window of its first
// transmission. An ACK answers a message when it carries the same four-field
// key (docs/sources.md 10); `fragment-acks` also demands the exact 5-byte form
// `[01][seq][01][idx]` (transport-layer.md §3, docs/sources.md 2 and 14: the stock
// server's fragment ACKs on the wire are of this form). One exception: a
// client's Connect is answered by the server's connect reply, not by an ACK
// (the join capture: `01 02 03 06 C0 00 00 02 32 …` carries no ACK; the model's
// Receiver does the same), so for `ack-within` that reply counts as its ACK.
import { msToUsUnrounded } from '../../core/engine/index.js';
import { TYPE_ACK, describeMessage } from '../../core/codec/index.js';
import type { AckMessage } from '../../core/codec/index.js';
import { KEY_REUSE_GAP_MS } from './rules.js';
import type { Judge, JudgeContext } from './judge.js';
import { KeyTable } from './judge.js';
import {
  ackKey,
  describeKey,
  isConnectReply,
  isConnectRequest,
  isReliableData,
  messageFingerprint,
  messageKey,
  ms,
} from './wire-keys.js';
import type { WireMessageEvent } from './wire-keys.js';

export interface AckDeadlineOptions {
  readonly windowUs: number;
  /** Judge fragments only (`fragment-acks`). */
  readonly fragmentsOnly: boolean;
  /** The ACK form required, beyond its key. */
  readonly wellFormed: (ack: AckMessage) => boolean;
  /** What the ACK must be, for the evidence: "an ACK", "a well-formed 5-byte fragment ACK". */
  readonly wanted: string;
  /** The server's connect reply answers our Connect (`ack-within`). */
  readonly connectReplyAnswers: boolean;
}

interface Sent {
  readonly key: number;
  readonly seq: number;
  readonly fragIndex: number | null;
  readonly firstUs: number;
  readonly fingerprint: number;
  readonly recordIndex: number;
  lastUs: number;
  transmissions: number;
  judged: boolean;
  /** The first ACK of this seq from the counterpart that did not answer it. */
  nearMiss: string | null;
}

const REUSE_GAP_US = msToUsUnrounded(KEY_REUSE_GAP_MS);

export class AckDeadlineJudge implements Judge {
  private readonly sent: KeyTable<Sent>;
  /** Unjudged messages by seq, so an ACK that misses them can be named in their evidence. */
  private readonly openBySeq = new Map<number, Set<Sent>>();
  /** Our latest Connect, until the connect reply answers it. */
  private connect: Sent | null = null;

  constructor(
    private readonly context: JudgeContext,
    private readonly options: AckDeadlineOptions,
  ) {
    this.sent = new KeyTable(context.budget);
  }

  observe(event: WireMessageEvent): void {
    const { message } = event;
    if (event.from === 'local' && isReliableData(message)) {
      if (this.options.fragmentsOnly && !message.fragment) return;
      const key = messageKey(message);
      const fingerprint = messageFingerprint(event);
      const known = this.sent.get(key);
      if (known !== undefined && known.fingerprint === fingerprint && event.timeUs - known.lastUs <= REUSE_GAP_US) {
        known.lastUs = event.timeUs;
        known.transmissions++;
        return;
      }
      // A new message under a used key: the old one is over (the entry below replaces it, at no new charge).
      if (known !== undefined) this.close(known);
      this.context.tally.seen++;
      const entry: Sent = {
        key,
        seq: message.seq,
        fragIndex: message.fragIndex,
        firstUs: event.timeUs,
        fingerprint,
        recordIndex: event.recordIndex,
        lastUs: event.timeUs,
        transmissions: 1,
        judged: false,
        nearMiss: null,
      };
      if (!this.sent.set(key, entry)) {
        this.context.tally.untracked++;
        return;
      }
      this.open(entry);
      if (this.options.connectReplyAnswers && isConnectRequest(message, event.peerId)) this.connect = entry;
    } else if (event.from === 'remote' && message.type === TYPE_ACK) {
      // Late only if it was certainly late: read after a stall of ours, it may have come sooner.
      this.answer(message, event.arrivedFromUs);
    } else if (event.from === 'remote' && this.connect !== null && isConnectReply(message, event.peerId)) {
      if (!this.connect.judged) this.judge(this.connect, event.arrivedFromUs);
      this.connect = null;
    }
  }

  private answer(ack: AckMessage, timeUs: number): void {
    const entry = this.sent.get(ackKey(ack));
    if (entry !== undefined && this.options.wellFormed(ack)) {
      if (!entry.judged) this.judge(entry, timeUs);
      return;
    }
    // Unmatched or ill-formed: name it in the evidence of what it may have meant to answer.
    for (const open of this.openBySeq.get(ack.seq) ?? []) {
      open.nearMiss ??= `the counterpart's ACK of seq ${ack.seq} was "${describeMessage(ack, 0)}", which does not answer it`;
    }
  }

  /** Settles the entry and counts it: checked, or skipped when its window reaches past the log's end. */
  private judgeable(entry: Sent): boolean {
    this.settle(entry);
    if (entry.firstUs + this.options.windowUs > this.context.endUs) {
      this.context.tally.skipped++;
      return false;
    }
    this.context.tally.checked++;
    return true;
  }

  /** Judges a message on its first acceptable ACK, at `ackUs`. */
  private judge(entry: Sent, ackUs: number): void {
    if (!this.judgeable(entry)) return;
    const { windowUs } = this.options;
    const delayUs = ackUs - entry.firstUs;
    if (delayUs > windowUs) {
      const detail = `${this.what(entry)} got ${this.options.wanted} only ${ms(delayUs)} after its first transmission, later than ${ms(windowUs)} (sent ${times(entry.transmissions)}).`;
      this.context.violate(entry.firstUs, entry.seq, entry.fragIndex, detail, entry.recordIndex);
    }
  }

  /** Judges a message that got no acceptable ACK, when it is replaced, forgotten or the log ends. */
  private close(entry: Sent): void {
    if (entry.judged || !this.judgeable(entry)) return;
    const { windowUs } = this.options;
    const miss = entry.nearMiss === null ? '' : `; ${entry.nearMiss}`;
    const detail = `${this.what(entry)} got no ${this.options.wanted.replace(/^an? /, '')} within ${ms(windowUs)} of its first transmission (sent ${times(entry.transmissions)})${miss}.`;
    this.context.violate(entry.firstUs, entry.seq, entry.fragIndex, detail, entry.recordIndex);
  }

  private open(entry: Sent): void {
    let set = this.openBySeq.get(entry.seq);
    if (set === undefined) this.openBySeq.set(entry.seq, (set = new Set()));
    set.add(entry);
  }

  private settle(entry: Sent): void {
    entry.judged = true;
    const set = this.openBySeq.get(entry.seq);
    if (set === undefined) return;
    set.delete(entry);
    if (set.size === 0) this.openBySeq.delete(entry.seq);
  }

  private what(entry: Sent): string {
    return entry.fragIndex === null
      ? `Our reliable message ${describeKey(entry.key)}`
      : `Our fragment ${entry.fragIndex} of seq ${entry.seq}`;
  }

  sweep(beforeUs: number): void {
    for (const entry of this.sent.evict((e) => e.lastUs < beforeUs)) this.close(entry);
  }

  finish(): void {
    for (const entry of this.sent.drain()) this.close(entry);
  }
}

function times(n: number): string {
  return n === 1 ? 'once' : `${n} times`;
}

/** `fragment-acks`: flags exactly 0x01, so a 5-byte fragment ACK of a high-type message. */
export function isWellFormedFragmentAck(ack: AckMessage): boolean {
  return ack.flags === 0x01 && ack.fragIndex !== null;
}
