// Build step, after esbuild (npm run bundle): stores the validated built-in scenarios
// beside the compiled loaders (scenario/stored.ts): dist/model/scenario/ for the modules tsc
// wrote, dist/cli/ for the bundle's chunks. It also makes the bin executable, as npm
// does when it installs it: esbuild kept the mode of the main.js that tsc wrote first.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STORED_BUILTINS_FILE, storedBuiltins } from '../model/scenario/index.js';

const text = `${JSON.stringify(storedBuiltins())}\n`;
for (const dir of ['./', '../model/scenario/'])
  writeFileSync(join(fileURLToPath(new URL(dir, import.meta.url)), STORED_BUILTINS_FILE), text);
chmodSync(fileURLToPath(new URL('./main.js', import.meta.url)), 0o755);
