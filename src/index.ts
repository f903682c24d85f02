// bcsim's library API: everything the CLI does is available from here.
export * as engine from './engine/index.js';
export * as codec from './codec/index.js';
export { VERSION } from './version.js';
export { runCli } from './cli/program.js';
export type { CliIO } from './cli/io.js';
