// The reproductions' public surface: fragment-ACK causes, the ACK-outbox readings
// and their results, the wire signature the capture analysis reuses, and the
// R-Type defect table.
export { CRITERIA, measureSignature, median } from './signature.js';
export type { Signature } from './signature.js';
export { READINGS, STOCK_READING } from './readings.js';
export type { Reading } from './readings.js';
export { STOCK_CAUSE, reproduceFragmentAck } from './fragment-ack.js';
export type { FragmentAckReproduction, Hypothesis } from './fragment-ack.js';
export { reproduceAckOutbox, scenarioSource } from './ack-outbox.js';
export type { AckOutboxReproduction, ReadingResult } from './ack-outbox.js';
export { reproduceRtype } from './rtype.js';
export type { RtypeReproduction, RtypeReproductionRow, SymptomCell } from './rtype.js';
export { DEFECT_CLAIMS, TABLE_SYMPTOMS, TABLE_SYMPTOM_TITLES } from './rtype-expected.js';
export type { TableSymptom } from './rtype-expected.js';
export { VERDICT_ALTERNATIVES, alternativeDescription, alternativeRun } from './alternatives.js';
export type { VerdictAlternative } from './alternatives.js';
