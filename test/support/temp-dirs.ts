// Scratch folders a test file makes; the file removes them in its own afterAll
// (a hook registered in a shared module would run for its first importer only).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDirs(stem: string): { temp: (prefix: string) => string; remove: () => void } {
  const made: string[] = [];
  return {
    temp(prefix: string): string {
      const dir = mkdtempSync(join(tmpdir(), `${stem}${prefix}-`));
      made.push(dir);
      return dir;
    },
    remove(): void {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
