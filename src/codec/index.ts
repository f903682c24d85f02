export * from './constants.js';
export * from './types.js';
export { messageSize, validateMessage, writeMessage, readMessage, dataHeaderBytes } from './message.js';
export * from './datagram.js';
export * from './hex.js';
export * from './view.js';
