// The analysis's memory over every connection of one WireAnalyzer, in
// estimated bytes. Each connection has its own limits (ACK keys, queued sends,
// signature events); this one stops many connections together, as a proxy's
// 64 clients or a capture's 4,096 connections under hostile traffic would
// otherwise hold 64 or 4,096 times one connection's worst. What it refuses is
// counted where each structure already counts what it could not follow.
import { Budget } from '../../core/engine/index.js';

/** Estimated bytes of one tracked ACK key (the Map entry and its AckState), measured on Node 20: 190. */
export const ACK_KEY_BYTES = 200;
/** One queued ACK send (a key and a time in two arrays), measured: 24. */
export const QUEUED_SEND_BYTES = 24;
/** One reduced signature event (the event, its arrays and the message read), measured: 355. */
export const SIGNATURE_EVENT_BYTES = 400;
/** The default: a long capture's legitimate analysis stays far below it. */
const DEFAULT_ANALYSIS_BUDGET_BYTES = 128 * 1_048_576;

/** The budget of one analyzer, in estimated bytes. */
export function analysisBudget(limitBytes: number = DEFAULT_ANALYSIS_BUDGET_BYTES): Budget {
  return new Budget(limitBytes, 'analysis budget');
}
