// `retransmit-interval` and `stops-after-ack`: how the counterpart re-sends
// its reliable messages. A transmission is of a key (seq, low/high, fragment
// index: docs/sources.md 10); the same bytes again under that key are a
// retransmission, other bytes (or the key again after KEY_REUSE_GAP_MS) a new
// message after the u16 wrap (docs/sources.md 1).
//
// `stops-after-ack` judges each message of theirs we ACKed: no transmission of
// it more than graceMs after our first ACK. On a lossy link (behind `bcsim
// proxy --loss`) our ACK itself can be lost and the re-send is then correct
// behaviour: use this rule on clean loopback.
//
// A keepalive (the type-0x00 identity message) is a new message each time: a
// server echoes each keepalive of the client, and some send a cached copy of
// it back under the client's seq about every second (docs/captures.md). The
// same keepalive again under one seq is therefore a keepalive repeat, counted
// apart (Tally.keepaliveRepeats), and neither rule judges it as a re-send.
import { msToUsUnrounded } from '../../core/engine/index.js';
import { TYPE_ACK, TYPE_DATA } from '../../core/codec/index.js';
import { KEY_REUSE_GAP_MS } from './rules.js';
import type { Judge, JudgeContext, OpenEvidence } from './judge.js';
import { KeyTable } from './judge.js';
import {
  ackKey,
  describeKey,
  isReliableData,
  keyFragIndex,
  keySeq,
  messageFingerprint,
  messageKey,
  ms,
} from './wire-keys.js';
import type { WireMessageEvent } from './wire-keys.js';

const REUSE_GAP_US = msToUsUnrounded(KEY_REUSE_GAP_MS);

interface Theirs {
  readonly key: number;
  readonly fingerprint: number;
  lastUs: number;
  /** The earliest the latest transmission may have arrived (wire-keys.ts). */
  lastFromUs: number;
  /** Our first ACK of it (NaN: none yet). */
  ackUs: number;
  /** Transmissions more than the grace after our ACK. */
  lateResends: number;
  lastLateUs: number;
  evidence: OpenEvidence | null;
}

/** Tracks the counterpart's reliable messages; calls back on each retransmission. */
abstract class TheirMessages implements Judge {
  protected readonly messages: KeyTable<Theirs>;

  constructor(protected readonly context: JudgeContext) {
    this.messages = new KeyTable(context.budget);
  }

  observe(event: WireMessageEvent): void {
    const { message } = event;
    if (event.from === 'remote' && isReliableData(message)) {
      const key = messageKey(message);
      const fingerprint = messageFingerprint(event);
      const known = this.messages.get(key);
      if (known !== undefined && known.fingerprint === fingerprint && event.timeUs - known.lastUs <= REUSE_GAP_US) {
        if (message.type === TYPE_DATA) this.keepaliveRepeated(known, event);
        else this.resent(known, event);
        known.lastUs = event.timeUs;
        known.lastFromUs = event.arrivedFromUs;
        return;
      }
      if (known !== undefined) this.close(known);
      this.appeared();
      const entry: Theirs = {
        key,
        fingerprint,
        lastUs: event.timeUs,
        lastFromUs: event.arrivedFromUs,
        ackUs: Number.NaN,
        lateResends: 0,
        lastLateUs: 0,
        evidence: null,
      };
      if (!this.messages.set(key, entry)) this.context.tally.untracked++;
    } else if (event.from === 'local' && message.type === TYPE_ACK) {
      const entry = this.messages.get(ackKey(message));
      if (entry !== undefined && Number.isNaN(entry.ackUs)) {
        entry.ackUs = event.timeUs;
        this.acked();
      }
    }
  }

  /** A new message of the counterpart (tracked or not). */
  protected appeared(): void {}
  /** Our first ACK of a tracked message of the counterpart. */
  protected acked(): void {}
  protected abstract resent(entry: Theirs, event: WireMessageEvent): void;
  /** The same keepalive again under its seq: a new keepalive, not a re-send (the file's header). */
  protected abstract keepaliveRepeated(entry: Theirs, event: WireMessageEvent): void;
  protected abstract close(entry: Theirs): void;

  sweep(beforeUs: number): void {
    for (const entry of this.messages.evict((e) => e.lastUs < beforeUs && !(e.ackUs >= beforeUs))) this.close(entry);
  }

  finish(): void {
    for (const entry of this.messages.drain()) this.close(entry);
  }
}

/** `retransmit-interval`: each gap between consecutive transmissions lies in [min, max]. */
export class RetransmitIntervalJudge extends TheirMessages {
  constructor(
    context: JudgeContext,
    private readonly minUs: number,
    private readonly maxUs: number,
  ) {
    super(context);
  }

  protected override appeared(): void {
    this.context.tally.seen++;
  }

  protected keepaliveRepeated(): void {
    this.context.tally.keepaliveRepeats++;
  }

  protected resent(entry: Theirs, event: WireMessageEvent): void {
    this.context.tally.checked++;
    const gapUs = event.timeUs - entry.lastUs;
    // Read just after a stall of ours, either one may have arrived earlier than we read it:
    // too soon only if even the longest gap possible is, too late only if even the shortest is.
    const longestUs = event.timeUs - entry.lastFromUs;
    const shortestUs = event.arrivedFromUs - entry.lastUs;
    if (longestUs >= this.minUs && shortestUs <= this.maxUs) return;
    const side = longestUs < this.minUs ? 'sooner than' : 'later than';
    const bound = longestUs < this.minUs ? this.minUs : this.maxUs;
    const detail = `The counterpart re-sent its ${describeKey(entry.key)} ${ms(gapUs)} after its previous transmission, ${side} ${ms(bound)}.`;
    this.context.violate(event.timeUs, keySeq(entry.key), keyFragIndex(entry.key), detail, event.recordIndex);
  }

  /** Intervals are judged as they occur. */
  protected close(): void {}
}

/** `stops-after-ack`: no transmission more than the grace after our ACK. */
export class StopsAfterAckJudge extends TheirMessages {
  constructor(
    context: JudgeContext,
    private readonly graceUs: number,
  ) {
    super(context);
  }

  protected override acked(): void {
    this.context.tally.seen++;
  }

  /** Counted where a re-send would have been judged: past the grace after our ACK. */
  protected keepaliveRepeated(entry: Theirs, event: WireMessageEvent): void {
    if (this.pastGrace(entry, event)) this.context.tally.keepaliveRepeats++;
  }

  private pastGrace(entry: Theirs, event: WireMessageEvent): boolean {
    return !Number.isNaN(entry.ackUs) && event.arrivedFromUs - entry.ackUs > this.graceUs;
  }

  protected resent(entry: Theirs, event: WireMessageEvent): void {
    if (!this.pastGrace(entry, event)) return;
    entry.lateResends++;
    entry.lastLateUs = event.timeUs;
    if (entry.lateResends === 1) {
      entry.evidence = this.context.violate(
        event.timeUs,
        keySeq(entry.key),
        keyFragIndex(entry.key),
        this.detail(entry),
        event.recordIndex,
      );
    }
  }

  protected close(entry: Theirs): void {
    if (Number.isNaN(entry.ackUs)) return; // never ACKed by us: nothing to judge
    if (entry.lateResends > 0) {
      this.context.tally.checked++;
      if (entry.evidence !== null) entry.evidence.detail = this.detail(entry);
    } else if (entry.ackUs + this.graceUs <= this.context.endUs) {
      this.context.tally.checked++;
    } else {
      this.context.tally.skipped++;
    }
  }

  private detail(entry: Theirs): string {
    const what = `The counterpart re-sent its ${describeKey(entry.key)}`;
    const grace = `(grace ${ms(this.graceUs)})`;
    if (entry.lateResends === 1) return `${what} ${ms(entry.lastLateUs - entry.ackUs)} after our ACK ${grace}.`;
    return `${what} ${entry.lateResends} times past the grace after our ACK ${grace}, the last ${ms(entry.lastLateUs - entry.ackUs)} after it.`;
  }
}
