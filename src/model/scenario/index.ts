// The scenario's public surface: its type, loading and validation, `--set`, the
// built-in lookup and the limits other layers check against.
export type { Assertion, Expectations, Scenario, ScenarioParams, SwitchOverrides } from './scenario.js';
export { ScenarioError, describeValue, formatPath, jsonTextProblem, withoutByteOrderMark } from './errors.js';
export { MAX_FAULTS } from './schema.js';
export type { ExpectOp } from './schema.js';
export { checkWorkBudget } from './resolve.js';
export { applySet, parseSet } from './overrides.js';
export {
  BUILTIN_DIR,
  builtinNames,
  listBuiltins,
  loadScenario,
  looksLikePath,
  parseScenario,
  storedBuiltins,
} from './load.js';
export { MAX_SCHEME_FILE_BYTES, SCHEME_BUILTIN_DIR, isSchemeScenarioRef } from './scheme-ref.js';
export { STORED_BUILTINS_FILE } from './stored.js';
export { cellAt, cells, comboCount, comboSets, comboVary, gridSize } from './grid.js';
export type { GridCell, GridSpec, Vary } from './grid.js';
export { MAX_MANIFEST_FILE_BYTES, readManifestFile } from './manifest-file.js';
export type { LoadedManifest, ManifestForm, ManifestRoundSource } from './manifest-file.js';
