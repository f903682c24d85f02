// The wire trace's public surface: its events, the collector, filters, rendering
// and the traced run.
export { eventPeer } from './events.js';
export type { DropEvent, SendEvent, TraceEvent } from './events.js';
export { TraceCollector } from './collector.js';
export { FilterError, matches, parseFilter } from './filter.js';
export type { TraceFilter } from './filter.js';
export { BYTES_MODES, DEAD_ZONE_MARK, RETRANSMIT_MARK, eventToJson, formatEvent, traceHeader } from './format.js';
export type { BytesMode } from './format.js';
export { clientWithSlot, traceScenario } from './run.js';
export type { TraceOptions } from './run.js';
