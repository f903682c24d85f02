// Targeted drop rules: drop a whole datagram, or cut single messages out of it
// and re-encode, when decoded fields match.
import {
  DATAGRAM_HEADER_BYTES,
  TYPE_ACK,
  TYPE_NAMES,
  ackIsFragment,
  ackIsLowType,
  decodeDialect,
  encodeDatagram,
  isLowType,
} from '../../core/codec/index.js';
import type { Located, Message } from '../../core/codec/index.js';
import { micros, msToUs } from '../../core/engine/index.js';
import type { Micros, RandomStream } from '../../core/engine/index.js';
import type { DropRule, MessageMatch } from './config.js';
import { chance } from './draw.js';

/** True when every field given in `match` equals the message's. */
export function messageMatches(match: MessageMatch, message: Message): boolean {
  if (match.type !== undefined) {
    if (typeof match.type === 'number' ? message.type !== match.type : TYPE_NAMES[message.type] !== match.type)
      return false;
  }
  if (match.seq !== undefined && message.seq !== match.seq) return false;
  if (match.fragIndex !== undefined && message.fragIndex !== match.fragIndex) return false;
  if (message.type === TYPE_ACK) {
    // ACK fields live in its flags byte; an ACK is never itself reliable.
    if (match.fragment !== undefined && ackIsFragment(message) !== match.fragment) return false;
    if (match.lowType !== undefined && ackIsLowType(message) !== match.lowType) return false;
    if (match.reliable !== undefined && match.reliable !== false) return false;
    return true;
  }
  if (match.fragment !== undefined && message.fragment !== match.fragment) return false;
  if (match.lowType !== undefined && isLowType(message.type) !== match.lowType) return false;
  if (match.reliable !== undefined && message.reliable !== match.reliable) return false;
  return true;
}

export type RuleOutcome =
  | { readonly kind: 'pass' }
  | { readonly kind: 'drop' }
  | {
      readonly kind: 'rewrite';
      readonly bytes: Uint8Array;
      readonly uids: readonly number[];
      readonly removedIndexes: readonly number[];
    };

const PASS: RuleOutcome = { kind: 'pass' };
const DROP: RuleOutcome = { kind: 'drop' };

interface ActiveRule {
  readonly rule: DropRule;
  readonly fromUs: Micros;
  readonly untilUs: Micros;
  /** Matches counted toward firstN so far. */
  matches: number;
}

/**
 * Rules apply in config order to one datagram at its send time.
 * - A rule is live while fromMs <= now < untilMs and fewer than firstN matches were counted.
 * - A "match" is one matching message for scope 'message', and one datagram
 *   holding at least one (still present) matching message for scope 'datagram'.
 * - Every match counts toward firstN (the first N matches are the candidates),
 *   then is dropped with `probability` (a '.rules' draw only when 0 < p < 1).
 * - Messages removed by an earlier rule are invisible to later ones.
 * A datagram that does not decode matches nothing and passes untouched.
 * A datagram in a reimplementation's wire form (docs/sources.md 30, the proxy
 * relays them) is matched on the messages as read (a type-0x06 Disconnect as a
 * Disconnect); cutting messages out of it keeps every other message's own
 * bytes, in the sender's form, behind a fresh header.
 */
export class DropRules {
  private readonly rules: ActiveRule[];

  constructor(
    rules: readonly DropRule[],
    private readonly stream: RandomStream | null,
  ) {
    this.rules = rules.map((rule) => ({
      rule,
      fromUs: rule.fromMs === null ? micros(-Infinity) : msToUs(rule.fromMs),
      untilUs: rule.untilMs === null ? micros(Infinity) : msToUs(rule.untilMs),
      matches: 0,
    }));
  }

  apply(bytes: Uint8Array, uids: readonly number[], nowUs: Micros): RuleOutcome {
    if (!this.rules.some((r) => this.live(r, nowUs))) return PASS; // no decode when nothing can match
    const decoded = decodeDialect(bytes);
    if (!decoded.ok) return PASS;
    const messages = decoded.datagram.messages;
    const removed = new Array<boolean>(messages.length).fill(false);
    let removedCount = 0;
    for (const r of this.rules) {
      if (!this.live(r, nowUs)) continue;
      if (r.rule.scope === 'datagram') {
        const hit = messages.some((m, i) => !removed[i] && messageMatches(r.rule.match, m));
        if (hit && this.take(r)) return DROP;
        continue;
      }
      for (let i = 0; i < messages.length; i++) {
        if (removed[i] || !messageMatches(r.rule.match, messages[i]) || !this.live(r, nowUs)) continue;
        if (this.take(r)) {
          removed[i] = true;
          removedCount++;
        }
      }
    }
    if (removedCount === 0) return PASS;
    if (removedCount === messages.length) return DROP;
    const removedIndexes: number[] = [];
    const keptUids: number[] = [];
    const kept: Located[] = [];
    for (let i = 0; i < messages.length; i++) {
      if (removed[i]) removedIndexes.push(i);
      else kept.push(messages[i]);
    }
    for (let i = 0; i < uids.length; i++) if (!removed[i]) keptUids.push(uids[i]);
    const sendersForm = decoded.stock !== bytes;
    return {
      kind: 'rewrite',
      bytes: sendersForm
        ? splice(bytes, decoded.datagram.peerId, kept)
        : reencode(bytes, decoded.datagram.peerId, kept),
      uids: keptUids,
      removedIndexes,
    };
  }

  private live(r: ActiveRule, nowUs: Micros): boolean {
    return nowUs >= r.fromUs && nowUs < r.untilUs && (r.rule.firstN === null || r.matches < r.rule.firstN);
  }

  /** Counts a match toward firstN, then decides whether it is dropped. */
  private take(r: ActiveRule): boolean {
    r.matches++;
    return chance(this.stream, r.rule.probability);
  }
}

/**
 * Re-encodes the kept messages with the real codec (new msg_count). The codec
 * refuses only what the stock engine could not send (e.g. an oversized input);
 * then the kept messages' original bytes are spliced behind a fresh header.
 */
function reencode(original: Uint8Array, peerId: number, kept: readonly Located[]): Uint8Array {
  const encoded = encodeDatagram({ peerId, messages: kept });
  return encoded.ok ? encoded.bytes : splice(original, peerId, kept);
}

/** The kept messages' original bytes behind a fresh header (new msg_count). */
function splice(original: Uint8Array, peerId: number, kept: readonly Located[]): Uint8Array {
  const total = kept.reduce((n, m) => n + m.size, DATAGRAM_HEADER_BYTES);
  const out = new Uint8Array(total);
  out[0] = peerId;
  out[1] = kept.length;
  let pos = DATAGRAM_HEADER_BYTES;
  for (const m of kept) {
    out.set(original.subarray(m.offset, m.offset + m.size), pos);
    pos += m.size;
  }
  return out;
}
