// Reports are written atomically: each file goes to a hidden temporary file in
// the same folder and is renamed over the target, so a reader (or a killed run)
// never sees half a file. Temporaries left by a killed run are swept next time.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TEMP_PREFIX = '.bcsim-tmp-';

export function writeFileAtomic(dir: string, name: string, content: string | Uint8Array): string {
  mkdirSync(dir, { recursive: true });
  const target = join(dir, name);
  const temp = join(dir, `${TEMP_PREFIX}${process.pid}-${name}`);
  try {
    writeFileSync(temp, content);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return target;
}

/** Removes temporaries of earlier, killed runs. */
export function sweepTemporaries(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(TEMP_PREFIX)) rmSync(join(dir, name), { force: true });
}
