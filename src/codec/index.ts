export * from './constants.js';
export * from './types.js';
export { messageSize, validateMessage, writeMessage, readMessage, readHeader, messageOf, newMessageHeader, isDecodeError, dataHeaderBytes } from './message.js';
export type { MessageHeader, ReadResult } from './message.js';
export * from './datagram.js';
export * from './hex.js';
export * from './view.js';
export { encrypt, decrypt, encryptInto, decryptInto } from './cipher.js';
