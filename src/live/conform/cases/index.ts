// Every conformance case, in the order a report lists them (FAILs first, see campaign.ts).
import type { ConformCase } from '../case-types.js';
import { ackCategory, fragmentAcks, retransmit } from './acks.js';
import { peerIsolation } from './isolation.js';
import { disconnect, removal } from './lifecycle.js';
import { duplicateProcessing, fragmentReassembly } from './processing.js';
import { fullDatagram, garbage, keepaliveEcho } from './robustness.js';
import { mixedFragmentAcks, serverFragments } from './server-fragments.js';
import { serverSeqWrap } from './server-seq.js';
import { retransmitWindow } from './window.js';
import { staleAcks } from './stale.js';
import { seqWrap } from './wrap.js';

export const CONFORM_CASES: readonly ConformCase[] = [
  duplicateProcessing,
  fragmentReassembly,
  ackCategory,
  retransmit,
  retransmitWindow,
  fragmentAcks,
  serverFragments,
  mixedFragmentAcks,
  staleAcks,
  seqWrap,
  serverSeqWrap,
  fullDatagram,
  removal,
  disconnect,
  garbage,
  peerIsolation,
  keepaliveEcho,
];

export const CASE_IDS: readonly string[] = CONFORM_CASES.map((c) => c.id);
