// Traffic's public surface: the plan a scenario describes, the driver the session
// runs, and the join script and opcodes the live peer and the proxy reuse.
export { DEFAULT_JOIN_STAGGER_US, DEFAULT_PLAN, MEASURED_STATE_UPDATES_PER_DIRECTION, RELIABLE_RATE_PRESETS, isEventPhase } from './plan.js';
export type { Phase, TrafficPlan } from './plan.js';
export { Opcode } from './payloads.js';
export { JOIN_STEPS, joinSteps } from './join.js';
export type { TrafficPort } from './sources.js';
export { TrafficDriver } from './driver.js';
export type { PhaseStart } from './driver.js';
export { DEFAULT_MANIFEST, FINAL_ROUND, REFERENCE_HASH, MAX_MANIFEST_DEPTH, MAX_MANIFEST_FILES, MAX_MANIFEST_ROUNDS, findRound, nextRound, numberedFiles, standInFile, standInHash } from './manifest.js';
export type { ChecksumManifest, ManifestFile, ManifestRound, ManifestSubdir, ManifestTree } from './manifest.js';
export { checksumRequestPayload, checksumResponsePayload, parseChecksumRequest, parseChecksumResponse, responseMismatch, roundLabel } from './checksum.js';
export type { ChecksumRequest, ChecksumResponse, Parsed, PayloadError, WireTree } from './checksum.js';
