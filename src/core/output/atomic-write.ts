// Single files (the JUnit XML) are written atomically: the content goes
// to a hidden temporary in the same folder and is renamed over the target, so a
// reader (or a killed run) never sees half a file. Every temporary carries the
// pid of the process that made it, and a sweep removes only those whose owner is
// dead: a second bcsim running beside us keeps its live temporaries.
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export const TEMP_PREFIX = '.bcsim-tmp-';

/** The hidden name a process gives its temporary for `name`: the pid makes it ownable. */
export function temporaryName(prefix: string, name: string, pid: number = process.pid): string {
  return `${prefix}${pid}-${name}`;
}

/** The pid owning `entry` if it is `prefix<pid>-<name>` (any name when `name` is omitted). */
export function temporaryOwner(prefix: string, entry: string, name?: string): number | undefined {
  if (!entry.startsWith(prefix)) return undefined;
  const match = /^(\d+)-(.+)$/s.exec(entry.slice(prefix.length));
  if (!match || (name !== undefined && match[2] !== name)) return undefined;
  const pid = Number(match[1]);
  return pid > 0 ? pid : undefined;
}

/** Signal 0 probes without signalling: ESRCH means gone; EPERM (someone else's process) means alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Creates `dir` and its missing parents one level at a time: Node's recursive
 * mkdir never returns on /proc; a plain mkdir fails there at once.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let p = resolve(dir); !existsSync(p) && dirname(p) !== p; p = dirname(p)) missing.push(p);
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

export function writeFileAtomic(dir: string, name: string, content: string | Uint8Array): string {
  makeDirs(dir);
  const target = join(dir, name);
  const temp = join(dir, temporaryName(TEMP_PREFIX, name));
  try {
    writeFileSync(temp, content);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return target;
}

/**
 * Writes several files as a set: every temporary first, then the renames, so a
 * failure (or a kill) before the renames leaves none of them; a failed write
 * removes every temporary. Paths are absolute.
 */
export function writeFilesTogether(
  files: ReadonlyArray<{ readonly path: string; readonly content: string | Uint8Array }>,
): void {
  const temps: string[] = [];
  try {
    for (const f of files) {
      makeDirs(dirname(f.path));
      const temp = join(dirname(f.path), temporaryName(TEMP_PREFIX, basename(f.path)));
      temps.push(temp);
      writeFileSync(temp, f.content);
    }
  } catch (error) {
    for (const temp of temps) rmSync(temp, { force: true });
    throw error;
  }
  files.forEach((f, i) => renameSync(temps[i], f.path));
}

/**
 * Removes the temporary files (of `name` only, if given) left in `dir` by runs
 * that were killed; folders are never touched here (see atomic-folder.ts).
 */
export function sweepTemporaries(dir: string, name?: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = temporaryOwner(TEMP_PREFIX, entry, name);
    if (pid === undefined || isAlive(pid)) continue;
    const path = join(dir, entry);
    try {
      if (!lstatSync(path).isDirectory()) rmSync(path, { force: true });
    } catch {
      // Gone already (another sweeper): nothing to do.
    }
  }
}
