// The observed signature of the fragment-ACK bug (docs/sources.md 14),
// measured on a run's trace. Each criterion carries the measured value,
// so a table can say exactly which part of the signature a hypothesis misses.
import { usToSeconds } from '../../core/engine/index.js';
import {
  FRAGMENT_ACK_BYTES,
  TYPE_ACK,
  TYPE_GAME,
  ackFlagsFragment,
  ackFlagsLowType,
  isLowType,
} from '../../core/codec/index.js';
import type { AckMessage, Located } from '../../core/codec/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { TraceEvent } from '../../model/trace/index.js';

interface Criterion {
  readonly pass: boolean;
  /** The measured value, in words. */
  readonly measured: string;
}

export interface Signature {
  readonly allFragmentsTogether: Criterion;
  readonly periodAbout2s: Criterion;
  readonly continuesWholeRun: Criterion;
  readonly nonFragmentsNotResentAfterAck: Criterion;
  readonly fragmentAcksWellFormed: Criterion;
}

export const CRITERIA: ReadonlyArray<{ key: keyof Signature; title: string }> = [
  { key: 'allFragmentsTogether', title: '1 all N together' },
  { key: 'periodAbout2s', title: '2 period 2±0.5 s' },
  { key: 'continuesWholeRun', title: '3 ≥10, to end of life' },
  { key: 'nonFragmentsNotResentAfterAck', title: '4 non-frag stop' },
  { key: 'fragmentAcksWellFormed', title: '5 5-byte frag ACKs' },
];

/** Sends closer than this belong to one retransmit round. */
const ROUND_GAP_S = 1;

/**
 * `lifetimeS`: how long the sender keeps an unACKed message (switch
 * messageLifetime). Criterion 3 asks for re-sends until the run ends or the
 * message's lifetime does, whichever is first: "for the entire session" in the
 * bug documents, "dropped after the peer timeout" in the analysis.
 */
export function measureSignature(
  events: readonly TraceEvent[],
  endS: number,
  lifetimeS = Number.POSITIVE_INFINITY,
): Signature {
  const clientFragments: Array<{ t: number; seq: number; index: number; count: number | null; retransmit: boolean }> =
    [];
  const serverAcks: Array<Located<AckMessage>> = [];
  const ackedAt = new Map<string, number>();
  let resentAfterAck = 0;
  for (const e of events) {
    const t = usToSeconds(e.timeUs);
    if (e.kind === 'ack' && e.message.type === TYPE_ACK && !ackFlagsFragment(e.message.flags)) {
      const key = `${e.at}/${ackFlagsLowType(e.message.flags) ? 'L' : 'H'}${e.message.seq}`;
      if (!ackedAt.has(key)) ackedAt.set(key, t);
    }
    if (e.kind !== 'send') continue;
    e.messages.forEach((m, i) => {
      if (m.type === TYPE_ACK) {
        if (e.from === 'server') serverAcks.push(m);
        return;
      }
      if (!m.reliable) return;
      const retransmit = e.notes[i] === SendNote.Retransmit;
      if (m.fragment && e.from === 'client' && m.type === TYPE_GAME) {
        clientFragments.push({ t, seq: m.seq as number, index: m.fragIndex as number, count: m.fragCount, retransmit });
      } else if (!m.fragment && retransmit) {
        const acked = ackedAt.get(`${e.from}/${isLowType(m.type) ? 'L' : 'H'}${m.seq}`);
        if (acked !== undefined && acked < t) resentAfterAck++;
      }
    });
  }

  const first = clientFragments.find((f) => f.count !== null);
  const seq = first?.seq ?? -1;
  const n = first?.count ?? 0;
  const rounds: Array<{ start: number; indices: Set<number> }> = [];
  let last = Number.NEGATIVE_INFINITY;
  for (const f of clientFragments) {
    if (!f.retransmit || f.seq !== seq) continue;
    // A new round: a pause, or an index this round already sent (1 s re-sends of 10 ms-apart fragments leave no pause).
    if (f.t - last > ROUND_GAP_S || rounds[rounds.length - 1]?.indices.has(f.index))
      rounds.push({ start: f.t, indices: new Set() });
    rounds[rounds.length - 1].indices.add(f.index);
    last = f.t;
  }
  const complete = rounds.filter((r) => r.indices.size === n).length;
  const resends = clientFragments.filter((f) => f.retransmit && f.seq === seq).length;
  const gaps = rounds.slice(1).map((r, i) => r.start - rounds[i].start);
  const period = gaps.length === 0 ? null : median(gaps);
  const lastStart = rounds.length ? rounds[rounds.length - 1].start : null;
  const firstSend = clientFragments.find((f) => f.seq === seq && !f.retransmit)?.t ?? 0;
  const lifeEnd = Math.min(endS, firstSend + lifetimeS);

  const fragmentAcks = serverAcks.filter((a) => a.seq === seq && !ackFlagsLowType(a.flags));
  const wellFormed = fragmentAcks.filter(
    (a) => ackFlagsFragment(a.flags) && a.size === FRAGMENT_ACK_BYTES && a.fragIndex !== null && a.fragIndex < n,
  );
  const indices = new Set(wellFormed.map((a) => a.fragIndex));
  const malformed = fragmentAcks.length - wellFormed.length;

  return {
    allFragmentsTogether: {
      pass: rounds.length > 0 && complete === rounds.length,
      measured: rounds.length === 0 ? 'no re-sends' : `${complete}/${rounds.length} rounds; ${resends} re-sends`,
    },
    periodAbout2s: {
      pass: period !== null && Math.abs(period - 2) <= 0.5,
      measured: period === null ? 'n/a' : `${period.toFixed(2)} s`,
    },
    continuesWholeRun: {
      pass: rounds.length >= 10 && lastStart !== null && period !== null && lastStart >= lifeEnd - (period + 0.5),
      measured:
        lastStart === null
          ? '0 rounds'
          : `${rounds.length} rounds, last ${lastStart.toFixed(0)}/${lifeEnd.toFixed(0)} s`,
    },
    nonFragmentsNotResentAfterAck: {
      pass: resentAfterAck === 0,
      measured: `${resentAfterAck} after ACK`,
    },
    fragmentAcksWellFormed: {
      pass: n > 0 && indices.size === n && malformed === 0,
      measured: n === 0 ? 'no fragments' : `${indices.size}/${n} indices, ${malformed} bad`,
    },
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
