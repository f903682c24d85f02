// Every conformance case, in the order a report lists them.
import type { ConformCase } from '../case-types.js';
import { ackCategory, fragmentAcks, retransmit, staleAcks } from './acks.js';
import { disconnect, removal } from './lifecycle.js';
import { duplicateProcessing, fragmentReassembly } from './processing.js';
import { fullDatagram, garbage, keepaliveEcho } from './robustness.js';
import { seqWrap } from './wrap.js';

export const CONFORM_CASES: readonly ConformCase[] = [
  duplicateProcessing,
  fragmentReassembly,
  ackCategory,
  retransmit,
  fragmentAcks,
  staleAcks,
  seqWrap,
  fullDatagram,
  removal,
  disconnect,
  garbage,
  keepaliveEcho,
];

export const CASE_IDS: readonly string[] = CONFORM_CASES.map((c) => c.id);
