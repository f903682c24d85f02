// Which ACK behaviour one end shows on the wire, judged per connection and
// direction (docs/captures.md#reading-captures-decode-and-analyze). Three behaviours are known:
//
// - two-pass (stock, ack-outbox-deadlock.md §1; docs/sources.md 8-10): pass 1
//   sends an entry up to 3 times, ~0.667 s apart; pass 2 sends it again only
//   when something else opened the gate (a pass-1 ACK or a data message in the
//   same datagram, or a Disconnect), and frees it at its 9th send;
// - single-pass (the fixed mode, ack-outbox-deadlock.md §6): each entry sent up
//   to 3 times and then freed; a duplicate after that gets a fresh entry;
// - immediate: each ACK sent once, when the message is read.
//
// Each is a hypothesis with its own bookkeeping of entries (analyze.ts: born
// at the first send of a key not held, counting through re-sends of the
// message, as docs/sources.md 10 refreshes only the timer). What the wire shows
// against each is counted, in two kinds.
//
// Violations, which a lost datagram cannot fake (it only hides sends):
// - immediate: a key sent again with no transmission of its message since;
// - single-pass: a key sent after its entry's 3rd send with no transmission
//   since (a 4th send);
// - two-pass: a key sent after its entry's 9th send with no transmission
//   since; a pass-2 send (4th to 9th) in a datagram with nothing else in it
//   (only a Disconnect opens the gate then; a keepalive may be written after
//   pass 2, docs/sources.md 18, so a datagram with one says nothing).
// Skipped entries, which lost datagrams can fake: an entry held under the
// hypothesis that never came back although the end later sent a datagram with
// room for one more ACK at least 1 s after the entry was last due (its last
// send, or the last transmission of its message, which refreshes the timer,
// docs/sources.md 10). The ACK resend interval is 0.667 s (docs/sources.md 9), so by
// then a held entry is due; a pass-2 entry (3-8 sends) only counts when that
// datagram opened the gate (a data message or a pass-1 ACK in it). Every send
// lost before the capture point (a receiver behind a lossy link sees only what
// reached it) lowers the count seen, so an entry counts against a hypothesis
// only when at most half of its sends were seen: two-pass 4 or fewer of 9,
// single-pass 1 of 3. At 10 % loss, five of nine sends go missing in about
// 0.1 % of entries, two of three in about 3 %.
// Keys whose message the capture does not show are not judged.
//
// The decision (thresholds stated here and in docs/captures.md):
// - fewer than 5 judged keys: unknown (too little to go on);
// - a hypothesis fits when its violations are at most 5 % of the judged keys
//   and its skipped entries at most 20 % (a capture that missed datagrams, or a
//   receiver behind a lossy link, sees a few); it is refuted by at least 3
//   violations above 5 %, or at least 3 skipped entries and 30 %;
// - the behaviour is the one that fits when the other two are refuted;
//   otherwise unknown, naming what could not be told apart.
import type { AckBehaviour, AckBehaviourName, AckEvidence } from './analysis-types.js';

/** A judged end needs at least this many ACK keys whose message the capture shows. */
export const MIN_JUDGED_KEYS = 5;
/** Violations a fitting hypothesis may have, as a share of the judged keys. */
export const FIT_SHARE = 0.05;
/** Skipped entries a fitting hypothesis may have (a lost datagram can fake one), as a share of the judged keys. */
const SKIPPED_FIT_SHARE = 0.2;
/** A hypothesis with at least this share of skipped entries (and REFUTE_MIN) is refuted. */
const SKIPPED_REFUTE_SHARE = 0.3;
/** A refuted hypothesis has at least this many violations or skipped entries (and more than its share). */
export const REFUTE_MIN = 3;
/** An entry is skipped by a datagram this long after it was last due (1.5 resend intervals, docs/sources.md 9). */
export const PASSED_OVER_US = 1_000_000;
/** A skipped entry counts against a hypothesis only with at most this many sends seen: half its sends (see above). */
export const SKIPPED_AT_MOST = { 'two-pass': 4, 'single-pass': 1 } as const;
/** A pass-2 send this long after the key's previous send, with no gate-opening datagram between: the gate was shut. */
export const GATE_WAIT_US = 1_500_000;
/** The send count at which each behaviour frees an entry (docs/sources.md 8; the fix's N = 3). */
const FREE_AT: Readonly<Record<Exclude<AckBehaviourName, 'unknown'>, number>> = {
  'two-pass': 9,
  'single-pass': 3,
  immediate: 1,
};

/** Counters of one end, updated by analyze.ts as ACKs go by. */
export class AckEvidenceTally {
  judgedKeys = 0;
  /** Entries (two-pass bookkeeping) that reached a 4th send. */
  pass2Entries = 0;
  /** Datagrams with a pass-2 send that also carried something opening the gate. */
  gatedDatagrams = 0;
  ungatedDatagrams = 0;
  gateShut = 0;
  /** Entries that stopped for good though a later datagram had room, by their send count (two-pass bookkeeping): index 1..8. */
  readonly passedOverAt = new Array<number>(9).fill(0);
  readonly violations = { immediate: 0, singlePass: 0, twoPass: 0 };
  readonly skipped = { singlePass: 0, twoPass: 0 };
  unansweredDuplicates = 0;
  answeredDuplicates = 0;

  /** The evidence; `held`: skipped entries counted with those still held (live()), else this tally's. */
  evidence(held: Pick<AckEvidenceTally, 'skipped' | 'passedOverAt'> = this): AckEvidence {
    const passedOver: Record<string, number> = {};
    for (let n = 1; n <= 8; n++) if (held.passedOverAt[n] > 0) passedOver[String(n)] = held.passedOverAt[n];
    return {
      judgedKeys: this.judgedKeys,
      keysToPass2: this.pass2Entries,
      passedOver,
      pass2Datagrams: { gated: this.gatedDatagrams, ungated: this.ungatedDatagrams },
      gateShut: this.gateShut,
      violations: { ...this.violations },
      skipped: { ...held.skipped },
      unansweredDuplicates: this.unansweredDuplicates,
      answeredDuplicates: this.answeredDuplicates,
    };
  }
}

const NAMES: ReadonlyArray<{ rule: Exclude<AckBehaviourName, 'unknown'>; key: keyof AckEvidence['violations'] }> = [
  { rule: 'two-pass', key: 'twoPass' },
  { rule: 'single-pass', key: 'singlePass' },
  { rule: 'immediate', key: 'immediate' },
];

/** An immediate entry is never held after its send: nothing of it can be skipped. */
function skippedOf(e: AckEvidence, key: keyof AckEvidence['violations']): number {
  return key === 'immediate' ? 0 : e.skipped[key];
}

/** The behaviour the evidence shows, or the forced one. */
export function inferBehaviour(e: AckEvidence, forced?: Exclude<AckBehaviourName, 'unknown'>): AckBehaviour {
  const text = evidenceText(e);
  if (forced !== undefined)
    return {
      rule: forced,
      freeAt: FREE_AT[forced],
      basis: 'forced',
      summary: `forced by --ack-rule; the wire: ${text}`,
      evidence: e,
    };
  const unknown = (why: string): AckBehaviour => ({
    rule: 'unknown',
    freeAt: null,
    basis: 'thin',
    summary: `${why}; ${text}`,
    evidence: e,
  });
  if (e.judgedKeys < MIN_JUDGED_KEYS)
    return unknown(
      `only ${e.judgedKeys} ACK key${e.judgedKeys === 1 ? '' : 's'} of messages the capture shows (${MIN_JUDGED_KEYS} needed)`,
    );
  const tolerated = Math.floor(e.judgedKeys * FIT_SHARE);
  const skippedTolerated = Math.floor(e.judgedKeys * SKIPPED_FIT_SHARE);
  const skippedRefuting = Math.max(REFUTE_MIN, Math.ceil(e.judgedKeys * SKIPPED_REFUTE_SHARE));
  const fits = NAMES.filter((h) => e.violations[h.key] <= tolerated && skippedOf(e, h.key) <= skippedTolerated);
  const refuted = NAMES.filter(
    (h) => e.violations[h.key] >= Math.max(REFUTE_MIN, tolerated + 1) || skippedOf(e, h.key) >= skippedRefuting,
  );
  if (fits.length === 1 && refuted.length === NAMES.length - 1) {
    const rule = fits[0].rule;
    return { rule, freeAt: FREE_AT[rule], basis: 'inferred', summary: text, evidence: e };
  }
  if (fits.length === 0) return unknown('fits none of two-pass, single-pass, immediate');
  const open = NAMES.filter((h) => !refuted.includes(h)).map((h) => h.rule);
  return unknown(`cannot tell ${open.join(' from ')} apart`);
}

/** "keys sent 4–9 times: 37; gate seen shut 4 times; …": the evidence in one line. */
function evidenceText(e: AckEvidence): string {
  const parts = [`${e.judgedKeys} keys judged`];
  if (e.keysToPass2 > 0) parts.push(`keys sent 4–9 times: ${e.keysToPass2}`);
  const over = Object.entries(e.passedOver).map(([n, k]) => `${k} after ${n}`);
  if (over.length > 0) parts.push(`stopped though a later datagram had room: ${over.join(', ')}`);
  if (e.pass2Datagrams.gated + e.pass2Datagrams.ungated > 0)
    parts.push(`pass-2 datagrams gated ${e.pass2Datagrams.gated}, ungated ${e.pass2Datagrams.ungated}`);
  if (e.gateShut > 0) parts.push(`gate seen shut ${e.gateShut} time${e.gateShut === 1 ? '' : 's'}`);
  const v = e.violations;
  const k = e.skipped;
  parts.push(
    `against two-pass ${v.twoPass} (+${k.twoPass} skipped), single-pass ${v.singlePass} (+${k.singlePass} skipped), immediate ${v.immediate}`,
  );
  return parts.join('; ');
}

/** "two-pass, freed at the 9th send" for the tables. */
export function behaviourName(b: AckBehaviour): string {
  switch (b.rule) {
    case 'two-pass':
      return 'two-pass (stock), freed at the 9th send';
    case 'single-pass':
      return 'single-pass (fixed), freed at the 3rd send';
    case 'immediate':
      return 'immediate, each ACK sent once';
    case 'unknown':
      return 'unknown';
  }
}
