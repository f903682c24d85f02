// Build step, after esbuild (npm run bundle): stores the validated built-in scenarios
// beside the compiled loaders (scenario/stored.ts), then records the code cache that
// code-cache.ts loads, by running the CLI as users do: once without node flags
// (`node dist/cli/main.cjs`, as benches start it) and once with the bin's shebang
// flags. The caches are the chunks', whichever entry (main.cjs, main.js) loads them.
// Each run adds the functions it compiled: a short run, then --help.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STORED_BUILTINS_FILE, storedBuiltins } from '../scenario/index.js';
import { BUNDLE_ENTRY, RECORD_ENV, cacheDir } from './code-cache.js';

const CLI_DIR = dirname(BUNDLE_ENTRY);
const MAIN = fileURLToPath(new URL('./main.cjs', import.meta.url));
const SAMPLES = [['run', 'lossy-link', '--duration', '1s', '--json'], ['--help']];

function storeBuiltins(): void {
  const text = `${JSON.stringify(storedBuiltins())}\n`;
  for (const dir of [CLI_DIR, fileURLToPath(new URL('../scenario/', import.meta.url))]) writeFileSync(join(dir, STORED_BUILTINS_FILE), text);
}

/** code-cache.ts reads the chunks as latin1, which is their text only while they are ASCII. */
function checkAscii(): void {
  for (const chunk of readdirSync(CLI_DIR).filter((f) => f.endsWith('.cjs'))) {
    if (/[^\x00-\x7f]/.test(readFileSync(join(CLI_DIR, chunk), 'latin1'))) throw new Error(`dist/cli/${chunk} is not ASCII: keep esbuild's --charset=ascii`);
  }
}

/** The node flags of the bin's `#!/usr/bin/env -S node …` line. */
function shebangFlags(): string[] {
  const line = /^#!.*?\bnode\b(.*)$/.exec(readFileSync(MAIN, 'utf8').split('\n', 1)[0]);
  return line ? line[1].split(/\s+/).filter((flag) => flag !== '') : [];
}

function recordCodeCache(): void {
  for (const flags of [[], shebangFlags()]) {
    rmSync(cacheDir(flags), { recursive: true, force: true });
    for (const args of SAMPLES) {
      const command = [...flags, MAIN, ...args];
      const run = spawnSync(process.execPath, command, { env: { ...process.env, [RECORD_ENV]: '1' }, stdio: ['ignore', 'ignore', 'inherit'] });
      if (run.status !== 0) throw new Error(`recording the code cache: node ${command.join(' ')} exited with ${run.status ?? run.signal}`);
    }
  }
}

storeBuiltins();
checkAscii();
recordCodeCache();
