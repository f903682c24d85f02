// Scheme scenarios: the built-ins that run the R-Type scheme (rtype-deaths)
// or put it beside BC's transport on one workload (schemes-side-by-side); their file
// format, how each scheme turns the workload into traffic, and the runs.
export { SchemeScenarioError } from './checks.js';
export {
  DEFAULT_SCHEME_LINK,
  DEFAULT_SHARED_WORKLOAD,
  MAX_SCHEME_CLIENTS,
  MAX_SCHEME_DURATION_MS,
  MAX_SCHEME_OUTAGES,
  SCHEME_KINDS,
  parseSchemeScenario,
} from './scenario-file.js';
export type {
  RtypeSchemeScenario,
  SchemeKind,
  SchemeLink,
  SchemeScenario,
  SharedWorkload,
  SideBySideScenario,
} from './scenario-file.js';
export {
  MAX_SCHEME_FILE_BYTES,
  SCHEME_BUILTIN_DIR,
  isSchemeScenarioRef,
  listSchemeBuiltins,
  loadSchemeScenario,
} from './builtins.js';
export type { SchemeBuiltin } from './builtins.js';
export { RTYPE_FRAMES_PER_SECOND, rtypeConfigOf, rtypeLink, sharedAsRtypeWorkload } from './rtype-side.js';
export { BURST_WINDOW_S, STATE_UPDATE_BYTES, bcScenarioDocument, bcScenarioOf } from './bc-side.js';
export {
  PENDING_ID_BYTES,
  STORE_ENTRY_BYTES,
  TICK_BYTES,
  TIMER_BYTES,
  pendingEntryBytes,
  rtypeMemory,
  rtypeMemorySeries,
} from './memory.js';
export { bcFigures, rtypeFigures } from './figures.js';
export type { SchemeFigures } from './figures.js';
export { runRtypePresets } from './rtype-presets.js';
export type { RtypeComparison, RtypePresetRun } from './rtype-presets.js';
export { runSchemesSideBySide } from './side-by-side.js';
export type { SchemeColumn, SchemeColumnId, SchemesComparison, SchemesOptions } from './side-by-side.js';
