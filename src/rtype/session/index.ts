// R-Type sessions: one server and N clients on the engine, the death workload,
// the ledger, the metrics, the summary (bcsim.rtype/1) and its symptoms.
export { runRtype } from './run.js';
export { RTYPE_DEATHS, resolveRtypeConfig, linksOf } from './config.js';
export type { RtypeConfig, RtypeConfigInput, RtypeLinks, RtypeTcpConfig, RtypeWorkload } from './config.js';
export { RtypeConfigError, validateRtypeConfig } from './validate.js';
export { RtypeSession } from './session.js';
export type { DirectionCount, RtypeConnection, WireCounts } from './session.js';
export { RTYPE_SUMMARY_SCHEMA, summarizeRtype } from './summary.js';
export type { RtypeSummary } from './summary.js';
export { RTYPE_SYMPTOMS, SYMPTOM_DESCRIPTIONS, rtypeSymptoms } from './symptoms.js';
export type { RtypeSymptom } from './symptoms.js';
export { DeathLedger } from './ledger.js';
export type { ClientDeathStats, DeathStats } from './ledger.js';
export type { ResendFigures, RtypeSeries } from './metrics.js';
export { RtypeTraceHash, RTYPE_DIRECTION } from './trace-hash.js';
export type { RtypeDirection } from './trace-hash.js';
export { TcpChannel } from './tcp-channel.js';
export { DeathWorkload, FIRST_DEATH_ENTITY } from './workload.js';
