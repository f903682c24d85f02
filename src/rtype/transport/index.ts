// The R-Type ACK scheme (rtype-ack-system.md), a transport model beside the BC one:
// wire codec, switches and presets, the 30 Hz tick clock, server and client.
export * from './wire.js';
export * from './switches.js';
export * from './params.js';
export { TickClock } from './clock.js';
export { RtypeServer, SERVER_ID } from './server.js';
export type { RtypeServerHooks, SendKind } from './server.js';
export type { ServerCounters, FrameStats } from './counters.js';
export { RtypeClient } from './client.js';
export type { RtypeClientHooks, ClientCounters } from './client.js';
export { CriticalStore } from './store.js';
export type { StoredPacket } from './store.js';
export { PendingList } from './pending.js';
export type { PendingEntry } from './pending.js';
