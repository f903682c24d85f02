// The observations `reproduce ack-outbox` scores every reading against, each with
// its tolerance (in `expected`), its source, and the kind of evidence it is.
// Readings are ranked by the strongest evidence first: one that reproduces
// captured bytes outranks one that only fits counts, whatever the counts say.

/**
 * bytes: the captured bytes themselves. measured: a count, size or timing a
 * capture or an instrumented session measured. inferred: a write-up's reading
 * of what it saw, or a conclusion from something absent (a count that lists nothing).
 */
export type EvidenceKind = 'bytes' | 'measured' | 'inferred';
const EVIDENCE_KINDS: readonly EvidenceKind[] = ['bytes', 'measured', 'inferred'];

export interface CriterionInfo {
  readonly key: string;
  readonly title: string;
  readonly expected: string;
  readonly kind: EvidenceKind;
  readonly source: string;
  /** Another criterion this one contradicts: the table shows both and which reading matches which. */
  readonly against?: string;
}

export const CRITERIA = [
  // The loopback join and its lobby (the built-in fragment-ack-bug, 120 s).
  {
    key: 'joinPlateau',
    title: 'join plateau',
    expected: 'S 11±2, C 13±2',
    kind: 'measured',
    source: 'docs/sources.md 25 and the 91-s session: server 2→4→10→11, client 12→13 (peaks 11–13)',
  },
  {
    key: 'joinWireCost',
    title: 'join: 38 entries, 170–190 B',
    expected: 'C 38±5 at t+5 s, ≥150 B of ACKs',
    kind: 'measured',
    source: 'docs/sources.md 25: one write-up counts 38 entries at t+5 s, ~170–190 B of a datagram',
    against: 'joinPlateau',
  },
  {
    key: 'emptyQueueShare',
    title: 'ACK on empty queue',
    expected: '64±10% pooled',
    kind: 'measured',
    source: 'docs/sources.md 25: 64% of ACK arrivals (both sides pooled; the side is not stated)',
  },
  {
    key: 'keepaliveForm',
    title: 'keepalive bytes',
    expected: '22 B C0 reliable, ACK 01 01 00 02, echoed',
    kind: 'bytes',
    source:
      'docs/sources.md 12, 26: 22-byte type 0x00, flags 0xC0, seq 1; the server ACKs it 01 01 00 02 and echoes the same form',
  },
  {
    key: 'joinCaptured',
    title: 'join datagrams',
    expected: 'connect reply, response r0, request r2 byte-exact',
    kind: 'bytes',
    source: 'docs/sources.md R1–R3: the three captured join datagrams, each whole',
  },
  {
    key: 'connectAck',
    title: 'Connect ACKed',
    expected: '01 00 00 02, not in the reply',
    kind: 'bytes',
    source: 'docs/sources.md 26: the server ACKs the Connect (01 00 00 02); the captured connect reply carries no ACK',
  },
  {
    key: 'round2Datagram',
    title: 'r2 fragment 0 + ACK',
    expected: '418 B: ACK of request r2 + fragment 0',
    kind: 'bytes',
    source: "docs/sources.md 16, join table step 8: one 418-byte datagram, the request's ACK and the first fragment",
  },
  {
    key: 'fragmentRounds',
    title: 'fragment rounds',
    expected: '≥10 rounds, 2±0.5 s',
    kind: 'measured',
    source: 'docs/sources.md 14, 27: all fragments ~every 2 s, 10+ rounds',
  },
  {
    key: 'fragmentsWholeSession',
    title: 'fragments all session',
    expected: 'until the run ends',
    kind: 'inferred',
    source: 'bug documents: "for the entire session"',
  },
  // The measured Disconnect flow on loopback (docs/sources.md 21, 28).
  {
    key: 'ackSpacing',
    title: 'ACK spacing in quiet',
    expected: '0.667±0.03 s',
    kind: 'measured',
    source: 'docs/sources.md 9, 21: the same entry ~0.667 s apart',
  },
  {
    key: 'everyDatagram',
    title: 'ACKs in every datagram',
    expected: 'count<3 entries in ≥90% of datagrams',
    kind: 'measured',
    source:
      'docs/sources.md 25, ack-outbox-deadlock.md §3: every datagram carries each entry whose send count is below 3',
    against: 'ackSpacing',
  },
  {
    key: 'threeThenSilence',
    title: '3 sends, silence',
    expected: '3 sends, then 0',
    kind: 'measured',
    source: 'docs/sources.md 21: ACKs 3 times, then nothing until the Disconnect',
  },
  {
    key: 'disconnectDatagram',
    title: 'Disconnect datagram',
    expected: '02 03 05 0A C0 02 00 02 0A 0A 0A EF + 2 stale ACKs, 20 B',
    kind: 'bytes',
    source:
      "docs/sources.md 21, 28: the captured 20 bytes, Disconnect low seq 2 and exactly 2 stale ACKs (the ACKed seqs count the server's messages and are compared apart)",
  },
  {
    key: 'disconnectAckSends',
    title: 'ACK of Disconnect (21)',
    expected: '8 sends, 0.67±0.05 s',
    kind: 'measured',
    source: 'docs/sources.md 21: sent, then re-sent 7 times ~0.67 s apart',
  },
  {
    key: 'disconnectAckTimestamps',
    title: 'ACK of Disconnect (28)',
    expected: '7 sends over 4.0±0.3 s',
    kind: 'measured',
    source: 'docs/sources.md 28, by the timestamps: 7 sends over ~4.0 s',
    against: 'disconnectAckSends',
  },
  {
    key: 'peerRemoved',
    title: 'peer removed',
    expected: '4.16 s after (≤4.5 s)',
    kind: 'measured',
    source: 'docs/sources.md 28: the peer is gone ~4.16 s after the Disconnect arrived',
  },
  // The 34-minute, 3-player session (the built-in valentines).
  {
    key: 'outboxPeakClient',
    title: '34-min outbox, client',
    expected: '20–33',
    kind: 'measured',
    source: 'docs/sources.md 23, 25: 20–33 per connection',
  },
  {
    key: 'outboxPeakServer',
    title: '34-min outbox, server side',
    expected: '20–33',
    kind: 'measured',
    source: 'docs/sources.md 23, 25: 20–33 per connection (the side is not stated)',
  },
  {
    key: 'selfLimiting',
    title: '34-min self-limiting',
    expected: 'no connection grows',
    kind: 'measured',
    source: 'docs/sources.md 25: an equilibrium of 10–33 entries that does not grow',
  },
  {
    key: 'messagesPerDatagram34',
    title: '34-min msgs/datagram',
    expected: 'up to 33 (25–40)',
    kind: 'measured',
    source: 'docs/sources.md 25: datagrams of up to 33 messages',
  },
  {
    key: 'ackBytes34',
    title: '34-min ACK bytes/datagram',
    expected: '~132 (100–190)',
    kind: 'measured',
    source: 'docs/sources.md 25: ~132 B of ACKs (another write-up: 170–190 B)',
  },
  {
    key: 'keepalives34',
    title: '34-min keepalives',
    expected: '94 (47–188) on the wire',
    kind: 'measured',
    source:
      "docs/sources.md 12 and the per-type counts: 94 in 34 min (3 players), messages on the wire: the join's and the echoes count",
  },
  {
    key: 'stateUpdateRate',
    title: 'StateUpdates per ship',
    expected: '~10 Hz (8–12)',
    kind: 'measured',
    source: 'docs/sources.md 29: ~10 Hz per ship',
  },
  {
    key: 'checksumResends34',
    title: '34-min checksum re-sends',
    expected: '<42',
    kind: 'inferred',
    source: 'docs/sources.md 27: the per-type counts list no checksum message (smallest listed count 42)',
    against: 'fragmentRounds',
  },
  // Combat, then quiet.
  {
    key: 'passOneOpensGate',
    title: 'pass-1 ACKs open the gate',
    expected: 'a datagram of fresh ACKs carries stale ones',
    kind: 'inferred',
    source:
      'docs/sources.md 8.4, ack-outbox-deadlock.md §1: pass 2 runs if "at least one message was written by Pass 1 or the game data queues"',
    against: 'quietLobbyPersists',
  },
  {
    key: 'quietLobbyPersists',
    title: 'dead zone in quiet',
    expected: 'persists (end ≥ early > 0)',
    kind: 'inferred',
    source: 'ack-outbox-deadlock.md §2: in quiet periods the deadlock persists and entries accumulate',
  },
  // The join's timeline on loopback (docs/sources.md 33), measured on the loopback join's run:
  // each step within ±15 % or ±10 ms of its measured gap, whichever is larger.
  {
    key: 'joinTimelineTotal',
    title: 'join: Connect → Settings',
    expected: '1,293 ms ±10 %',
    kind: 'measured',
    source: 'docs/sources.md 33: the captured join, Connect at 0 ms, Settings + GameInit at 1,293 ms',
  },
  {
    key: 'joinQuickSteps',
    title: 'join: quick replies',
    expected: '+2 +7 +1 +1 +1 +3 +1 ms, each ±10 ms',
    kind: 'measured',
    source:
      'docs/sources.md 33: the connect reply, responses 0, 1 and 3 and requests 1, 2 and 0xFF, each 1–7 ms after the previous datagram',
  },
  {
    key: 'joinClientHashing',
    title: 'join: client hashing',
    expected: 'r2 fragment 0 +705±106, r0xFF +63±10 ms',
    kind: 'measured',
    source:
      'docs/sources.md 33: the round 2 response (first fragment) 705 ms after its request, the round 0xFF response 63 ms after its',
  },
  {
    key: 'joinRound3Gap',
    title: 'join: r3 request after r2',
    expected: '+461±69 ms after fragment 0',
    kind: 'measured',
    source: "docs/sources.md 33: the round 3 request 461 ms after the round 2 response's first fragment",
  },
  {
    key: 'joinSettingsGap',
    title: 'join: Settings after r0xFF',
    expected: '+48±10 ms',
    kind: 'measured',
    source: 'docs/sources.md 33: Settings + GameInit 48 ms after the round 0xFF response',
  },
  // The same Disconnect after a minute of combat, with no lull before it.
  {
    key: 'combatDisconnect',
    title: 'Disconnect after combat',
    expected: '2 stale ACKs after 60 s of combat at 4.9/s',
    kind: 'inferred',
    source:
      "docs/sources.md 21, 28: the captured Disconnect's 2 stale ACKs, taken as the end of a minute of combat at the 34-minute aggregate (4.9 reliable/s); the capture did not record such a minute (its ACKed seqs, 39 and 40, say its server sent 41 reliable game messages in all)",
  },
] as const satisfies readonly CriterionInfo[];

export type CriterionKey = (typeof CRITERIA)[number]['key'];

export interface Cell {
  readonly value: string;
  readonly expected: string;
  readonly matches: boolean;
}

export type Cells = Record<CriterionKey, Cell>;

const EXPECTED = new Map<string, string>(CRITERIA.map((c) => [c.key, c.expected]));

/** A cell of `key`: what was measured, against the criterion's stated expectation. */
export function cell(key: CriterionKey, value: string, matches: boolean): Cell {
  return { value, expected: EXPECTED.get(key) ?? '', matches };
}

/** Matched criteria per kind of evidence, strongest first. */
export type Score = Record<EvidenceKind, number>;

export function scoreOf(cells: Cells): Score {
  const score: Score = { bytes: 0, measured: 0, inferred: 0 };
  for (const c of CRITERIA) if (cells[c.key].matches) score[c.kind]++;
  return score;
}

/** The ranking rule: more captured bytes reproduced first, then measured figures, then inferences. */
export function compareScores(a: Score, b: Score): number {
  for (const kind of EVIDENCE_KINDS) if (a[kind] !== b[kind]) return b[kind] - a[kind];
  return 0;
}

export const RANKING_RULE =
  'Readings rank by the captured bytes they reproduce, then by the measured figures they fit, then by the inferences; a reading that reproduces more captured bytes ranks higher whatever the counts say.';
