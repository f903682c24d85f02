// The two bug reproductions' public surface: fragment-ACK causes, the ACK-outbox
// readings and their results, and the wire signature the capture analysis reuses.
export { CRITERIA, measureSignature, median } from './signature.js';
export type { Signature } from './signature.js';
export { READINGS, STOCK_READING } from './readings.js';
export type { Reading } from './readings.js';
export { STOCK_CAUSE, reproduceFragmentAck } from './fragment-ack.js';
export type { FragmentAckReproduction, Hypothesis } from './fragment-ack.js';
export { reproduceAckOutbox, scenarioSource } from './ack-outbox.js';
export type { AckOutboxReproduction, ReadingResult } from './ack-outbox.js';
