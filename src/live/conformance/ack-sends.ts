// `ack-sends-max`: no ACK entry of the counterpart goes on the wire more than
// `max` times. An entry is the ACKs of one key (docs/sources.md 10) since our
// latest transmission of the message it answers: a retransmission makes the
// receiver ACK again, so it legitimately starts a new count. The stock
// two-pass outbox frees an entry at its 9th send (docs/sources.md 8); a stuck
// entry sent on and on is the ACK-outbox deadlock (ack-outbox-deadlock.md).
import { TYPE_ACK } from '../../core/codec/index.js';
import type { Judge, JudgeContext, OpenEvidence } from './judge.js';
import { KeyTable } from './judge.js';
import { ackKey, describeKey, isReliableData, keyFragIndex, keySeq, messageKey } from './wire-keys.js';
import type { WireMessageEvent } from './wire-keys.js';

interface AckEntry {
  readonly key: number;
  sends: number;
  lastUs: number;
  /** The entry began after one of our transmissions (not at the start of the log). */
  readonly afterOurSend: boolean;
  evidence: OpenEvidence | null;
}

export class AckSendsJudge implements Judge {
  private readonly entries: KeyTable<AckEntry>;
  /** Keys we have transmitted, so an entry knows it follows our send. */
  private readonly sentByUs: KeyTable<number>;

  constructor(
    private readonly context: JudgeContext,
    private readonly max: number,
  ) {
    this.entries = new KeyTable(context.budget);
    this.sentByUs = new KeyTable(context.budget);
  }

  observe(event: WireMessageEvent): void {
    const { message } = event;
    if (event.from === 'local' && isReliableData(message)) {
      const key = messageKey(message);
      const entry = this.entries.get(key);
      if (entry !== undefined) {
        this.entries.delete(key);
        this.close(entry);
      }
      if (!this.sentByUs.set(key, event.timeUs)) this.context.tally.untracked++;
    } else if (event.from === 'remote' && message.type === TYPE_ACK) {
      this.context.tally.seen++;
      const key = ackKey(message);
      let entry = this.entries.get(key);
      if (entry === undefined) {
        entry = {
          key,
          sends: 0,
          lastUs: event.timeUs,
          afterOurSend: this.sentByUs.get(key) !== undefined,
          evidence: null,
        };
        if (!this.entries.set(key, entry)) {
          this.context.tally.untracked++;
          return;
        }
      }
      entry.sends++;
      entry.lastUs = event.timeUs;
      if (entry.sends === this.max + 1) {
        entry.evidence = this.context.violate(
          event.timeUs,
          keySeq(key),
          keyFragIndex(key),
          this.detail(entry),
          event.recordIndex,
        );
      }
    }
  }

  /** The entry is over: count it, and complete its evidence with the final number of sends. */
  private close(entry: AckEntry): void {
    this.context.tally.checked++;
    if (entry.evidence !== null) entry.evidence.detail = this.detail(entry);
  }

  private detail(entry: AckEntry): string {
    const since = entry.afterOurSend
      ? 'since our latest transmission of that message'
      : 'with no transmission of ours in between';
    return `The counterpart sent its ACK of ${describeKey(entry.key)} ${entry.sends} times ${since}, more than ${this.max}.`;
  }

  sweep(beforeUs: number): void {
    for (const entry of this.entries.evict((e) => e.lastUs < beforeUs)) this.close(entry);
    this.sentByUs.evict((timeUs) => timeUs < beforeUs);
  }

  finish(): void {
    for (const entry of this.entries.drain()) this.close(entry);
    this.sentByUs.drain();
  }
}
