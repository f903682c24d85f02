// Traffic's public surface: the plan a scenario describes, the driver the session
// runs, and the join script and opcodes the live peer and the proxy reuse.
export {
  DEAD_PLAYER_FEEDS,
  DEFAULT_JOIN_STAGGER_US,
  DEFAULT_PLAN,
  MAX_BURST_MESSAGES,
  MEASURED_STATE_UPDATES_PER_DIRECTION,
  RELIABLE_RATE_PRESETS,
  SERVER_CHECKS,
  TREE_HASHINGS,
  isEventPhase,
} from './plan.js';
export type { Deaths, Phase, TrafficPlan } from './plan.js';
export { MEASURED_JOIN_TIMELINE } from './join-timing.js';
export type { JoinEvent } from './join-timing.js';
export { SHIP_SELECTION_MS } from './join.js';
export { Opcode } from './payloads.js';
export { BURST_KIND_NAMES, EVENT_KIND_NAMES } from './mix.js';
export { joinSteps } from './join.js';
export type { JoinStep } from './join.js';
export type { TrafficPort } from './sources.js';
export { TrafficDriver } from './driver.js';
export type { PhaseStart } from './driver.js';
export {
  DEFAULT_MANIFEST,
  FINAL_ROUND,
  REFERENCE_HASH,
  MAX_MANIFEST_DEPTH,
  MAX_MANIFEST_DIRS,
  MAX_MANIFEST_FILES,
  MAX_MANIFEST_ROUNDS,
  MAX_MANIFEST_TEXT_CHARS,
  MAX_SUBDIRS,
  findRound,
  manifestProblem,
  numberedFiles,
  standInFile,
  standInHash,
} from './manifest.js';
export type { ChecksumManifest, ManifestFile, ManifestRound, ManifestSubdir, ManifestTree } from './manifest.js';
export {
  checksumAnswer,
  checksumResponsePayload,
  manifestOutline,
  parseChecksumRequest,
  parseChecksumResponse,
  responseMismatch,
  roundLabel,
} from './checksum.js';
export type { ChecksumRequest } from './checksum.js';
export {
  answerHashesText,
  checksumAnswerHashes,
  checksumAnswerHead,
  checksumAnswerLines,
} from './checksum-hashes.js';
export type { ChecksumAnswerHashes } from './checksum-hashes.js';
