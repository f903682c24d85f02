// Per-peer counters of the transport model: modelled costs and traffic.
// Plain numbers updated inline; observers read them, never write them.
// Their names, units, aggregation and meaning are rows of the counter schema
// (counter-schema.ts, which joins counter-rows-*.ts): add a row there, then increment it here.
export { newPeerCounters } from './counter-schema.js';
export type { PeerCounters, PeerGauges } from './counter-schema.js';
