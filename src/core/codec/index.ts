export * from './constants.js';
export * from './types.js';
export {
  messageSize,
  validateMessage,
  writeMessage,
  readMessage,
  readHeader,
  messageOf,
  newMessageHeader,
  isDecodeError,
  dataHeaderBytes,
} from './message.js';
export type { MessageHeader, ReadResult } from './message.js';
export * from './datagram.js';
export * from './wire.js';
export * from './key.js';
export * from './seq.js';
export * from './hex.js';
export * from './view.js';
export { encrypt, decrypt, encryptInto, decryptInto } from './cipher.js';
export {
  decodeDialect,
  normalizeToStock,
  formOf,
  DEVIATION_CODES,
  MAX_DIALECT_STEPS,
  TYPE_DISCONNECT_ALT,
  newDeviationCounts,
  countDeviations,
  deviationCountsText,
} from './dialect.js';
export type { Deviation, DeviationCode, DeviationCounts, DialectResult, MessageForm } from './dialect.js';
