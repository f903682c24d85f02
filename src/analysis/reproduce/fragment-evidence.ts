// The evidence for and against each reading of the fragment-ACK bug (docs/sources.md
// 14, 27): the write-up's observed signature, and what speaks against any
// re-send at all. The five signature criteria are facets of one statement of the
// write-up, so they weigh as one piece of evidence; each other piece weighs once.
import { TYPE_ACK, TYPE_GAME } from '../../core/codec/index.js';
import { usToSeconds } from '../../core/engine/index.js';
import type { TraceEvent } from '../../model/trace/index.js';
import { SendNote } from '../../model/transport/index.js';
import { compareScores } from './criteria.js';
import type { EvidenceKind, Score } from './criteria.js';
import type { Signature } from './signature.js';

export const FRAGMENT_EVIDENCE = [
  {
    key: 'statedResends',
    title: 'the re-sends the write-up states',
    kind: 'measured',
    source: 'docs/sources.md 14, 27: all N fragments re-sent together ~every 2 s, 10+ rounds (criteria 1-3)',
  },
  {
    key: 'othersStop',
    title: 'non-fragments stop after their ACK',
    kind: 'measured',
    source: 'docs/sources.md 14 (criterion 4)',
  },
  {
    key: 'wellFormedAcks',
    title: 'well-formed 5-byte fragment ACKs',
    kind: 'bytes',
    source: 'docs/sources.md 14: the captured 01 02 00 01 01 and 01 02 00 01 02 (criterion 5)',
  },
  {
    key: 'noChecksumCounted',
    title: 'no checksum message in the 34-min counts',
    kind: 'inferred',
    source: 'docs/sources.md 27: the per-type counts list none (smallest listed count 42, three joins)',
  },
  {
    key: 'errantWereAcks',
    title: 'after the checksum phase: stale ACKs, no checksum data',
    kind: 'inferred',
    source: 'docs/sources.md 27: the "errant checksum packets" were stale ACKs of checksum-phase messages',
  },
] as const satisfies ReadonlyArray<{ key: string; title: string; kind: EvidenceKind; source: string }>;

type EvidenceKey = 'statedResends' | 'othersStop' | 'wellFormedAcks' | 'noChecksumCounted' | 'errantWereAcks';

export interface Weighed {
  readonly key: EvidenceKey;
  readonly holds: boolean;
  readonly measured: string;
}

/** The 34-minute session had three players, so three joins (docs/sources.md 23). */
const JOINS_34_MIN = 3;
/** The smallest count the 34-minute per-type list shows. */
const SMALLEST_LISTED_COUNT = 42;
/** After the client's last checksum response, this long for its ACKs to leave pass 1 first. */
const AFTER_PHASE_S = 2;

/** Weighs one run: the signature it produced, and its client's checksum messages after the checksum phase. */
export function weighFragmentEvidence(
  events: readonly TraceEvent[],
  signature: Signature,
  fragmentsPerMessage: number,
): Weighed[] {
  const stated =
    signature.allFragmentsTogether.pass && signature.periodAbout2s.pass && signature.continuesWholeRun.pass;
  // Checksum messages: requests [0x20 round ...] from the server, responses [0x21 round ...] from the client.
  const requestSeqs = new Set<number>();
  const responseSeqs = new Set<number>();
  let lastResponseS = 0;
  let fragmentResends = 0;
  let otherResends = 0;
  for (const e of events) {
    if (e.kind !== 'send') continue;
    e.messages.forEach((m, i) => {
      if (m.type !== TYPE_GAME || !m.reliable) return;
      if (e.from === 'server' && !m.fragment && m.payload[0] === 0x20) requestSeqs.add(m.seq as number);
      const response =
        e.from === 'client' &&
        (m.fragment
          ? responseSeqs.has(m.seq as number) || (m.fragIndex === 0 && m.payload[0] === 0x21)
          : m.payload[0] === 0x21);
      if (!response) return;
      if (e.notes[i] === SendNote.FirstSend) {
        responseSeqs.add(m.seq as number);
        lastResponseS = usToSeconds(e.timeUs);
      } else if (m.fragment) fragmentResends++;
      else otherResends++;
    });
  }
  // Per-type counts count messages: one re-send round of the fragmented response is one.
  const perJoin = Math.ceil(fragmentResends / Math.max(1, fragmentsPerMessage)) + otherResends;
  const counted = perJoin * JOINS_34_MIN;
  // What the client sent after the checksum phase that refers to it.
  let data = 0;
  let staleAcks = 0;
  for (const e of events) {
    if (e.kind !== 'send' || e.from !== 'client' || usToSeconds(e.timeUs) < lastResponseS + AFTER_PHASE_S) continue;
    e.messages.forEach((m, i) => {
      if (m.type === TYPE_ACK) {
        if (e.notes[i] === SendNote.StaleAck && requestSeqs.has(m.seq)) staleAcks++;
      } else if (m.type === TYPE_GAME && m.reliable && responseSeqs.has(m.seq as number)) data++;
    });
  }
  return [
    { key: 'statedResends', holds: stated, measured: stated ? 'all three hold' : 'not all of 1-3 hold' },
    {
      key: 'othersStop',
      holds: signature.nonFragmentsNotResentAfterAck.pass,
      measured: signature.nonFragmentsNotResentAfterAck.measured,
    },
    {
      key: 'wellFormedAcks',
      holds: signature.fragmentAcksWellFormed.pass,
      measured: signature.fragmentAcksWellFormed.measured,
    },
    {
      key: 'noChecksumCounted',
      holds: counted < SMALLEST_LISTED_COUNT,
      measured: `${perJoin} re-sent per join, ${counted} in ${JOINS_34_MIN} joins`,
    },
    {
      key: 'errantWereAcks',
      holds: data === 0 && staleAcks > 0,
      measured: `${staleAcks} stale ACKs of requests, ${data} checksum data`,
    },
  ];
}

export function scoreEvidence(weighed: readonly Weighed[]): Score {
  const score: Score = { bytes: 0, measured: 0, inferred: 0 };
  for (const w of weighed) if (w.holds) score[FRAGMENT_EVIDENCE.find((e) => e.key === w.key)?.kind ?? 'inferred']++;
  return score;
}

/** The readings ranked first (ties kept), by criteria.ts's rule: captured bytes, then measured, then inferred. */
export function rankFirst<T extends { readonly score: Score }>(rows: readonly T[]): T[] {
  const top = [...rows].sort((a, b) => compareScores(a.score, b.score))[0];
  return top === undefined ? [] : rows.filter((r) => compareScores(r.score, top.score) === 0);
}
