// Every conformance case, group by group, in the order a report lists them (FAILs
// first, see campaign.ts). A new case goes into its group's list, in its own file.
import type { ConformCase } from '../case-types.js';
import { PROCESSING_CASES } from './processing.js';
import { ACK_CASES } from './acks.js';
import { WINDOW_CASES } from './window.js';
import { SERVER_FRAGMENT_CASES } from './server-fragments.js';
import { STALE_CASES } from './stale.js';
import { WRAP_CASES } from './wrap.js';
import { SERVER_SEQ_CASES } from './server-seq.js';
import { ROBUSTNESS_CASES } from './robustness.js';
import { LIFECYCLE_CASES } from './lifecycle.js';
import { ISOLATION_CASES } from './isolation.js';

export const CONFORM_CASES: readonly ConformCase[] = [
  ...PROCESSING_CASES,
  ...ACK_CASES,
  ...WINDOW_CASES,
  ...SERVER_FRAGMENT_CASES,
  ...STALE_CASES,
  ...WRAP_CASES,
  ...SERVER_SEQ_CASES,
  ...ROBUSTNESS_CASES,
  ...LIFECYCLE_CASES,
  ...ISOLATION_CASES,
];

export const CASE_IDS: readonly string[] = CONFORM_CASES.map((c) => c.id);
