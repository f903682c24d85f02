// Where output may go, decided before a simulation runs: a bad --out
// or --junit must fail in a moment with one line, not after minutes of work.
// Only stats, realpath, statfs and access: nothing is created here.
import { accessSync, constants, readdirSync, realpathSync, statSync, statfsSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileErrorText } from '../../core/files/index.js';
import { TEMP_PREFIX, temporaryOwner } from './atomic-write.js';

/** A place that must not be written or replaced; the message completes "<flag> <path>: ". */
export class OutPathError extends Error {
  override readonly name = 'OutPathError';
}

// Kernel filesystems accept a root's access(W_OK) yet refuse every file: proc,
// sysfs, cgroup2, debugfs (statfs f_type magic numbers).
const KERNEL_FILESYSTEMS = new Set([0x9fa0, 0x62656572, 0x63677270, 0x64626720]);

/** Entries of a report folder that are not report files: such a folder is never replaced. */
export function foreignEntries(dir: string, reportFiles: readonly string[]): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => !(e.isFile() && (reportFiles.includes(e.name) || reportFiles.includes(leftoverOf(e.name)))))
    .map((e) => e.name)
    .sort();
}

/** A per-file temporary of an older bcsim inside the folder counts as a report file. */
function leftoverOf(entry: string): string {
  return temporaryOwner(TEMP_PREFIX, entry) === undefined
    ? ''
    : entry.slice(entry.indexOf('-', TEMP_PREFIX.length) + 1);
}

/**
 * Why `dir` cannot become (or be replaced by) a report folder of `reportFiles`; undefined if it can.
 * A folder the user named may be new, but its parent must exist; bcsim's own default places
 * (`reports/<scenario>/`) are made with their parents (`createParents`).
 */
export function outDirProblem(
  dir: string,
  reportFiles: readonly string[],
  cwd: string,
  createParents = false,
): string | undefined {
  if (dir === '') return 'an empty path names no folder; choose an empty or new folder';
  const path = resolve(cwd, dir);
  const stats = statOf(path);
  if (stats instanceof Error) {
    if (!missing(stats)) return refused(stats);
    return createParents ? creationProblem(path) : parentProblem(path);
  }
  if (!stats.isDirectory()) return 'is a file, not a folder';
  const real = realpathSync(path);
  if (dirname(real) === real) return 'is the root folder; choose an empty or new folder';
  const foreign = foreignEntries(real, reportFiles);
  if (foreign.length > 0) return foreignMessage(foreign);
  if (real === realpathSync(cwd)) return 'is the current folder, which would be replaced whole; name a sub-folder';
  // The folder is replaced by renames in its parent: a mount point cannot move.
  if (statSync(dirname(real)).dev !== stats.dev)
    return 'is a mount point, which cannot be replaced whole; name a folder inside it';
  return folderProblem(dirname(real));
}

export function foreignMessage(foreign: readonly string[]): string {
  const shown = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? `, and ${foreign.length - 3} more` : '');
  return `holds files that are not a bcsim report (${shown}); choose an empty or new folder`;
}

/**
 * Why a file cannot be written (by temporary and rename) at `file`; undefined if it can.
 * Its folder must exist: a mistyped folder is refused, never made.
 */
export function outFileProblem(file: string, cwd: string): string | undefined {
  if (file === '') return 'an empty path names no file';
  const path = resolve(cwd, file);
  const stats = statOf(path);
  if (stats instanceof Error) return missing(stats) ? parentProblem(path) : refused(stats);
  if (stats.isDirectory()) return 'is a folder, not a file';
  return folderProblem(dirname(realpathSync(path)));
}

/** A missing path can be made if its parent is a writable folder; a missing parent is named. */
function parentProblem(path: string): string | undefined {
  const parent = dirname(path);
  const stats = statOf(parent);
  if (!(stats instanceof Error))
    return stats.isDirectory() ? folderProblem(parent) : `${parent} is a file, not a folder`;
  if (!missing(stats)) return refused(stats);
  const file = fileOnTheWay(parent);
  return file === undefined ? `the folder ${parent} does not exist` : `${file} is a file, not a folder`;
}

/** The nearest existing ancestor of `path` when it is a file (`file/sub/x.xml`): the real reason. */
function fileOnTheWay(path: string): string | undefined {
  for (let p = dirname(path); ; p = dirname(p)) {
    const stats = statOf(p);
    if (!(stats instanceof Error)) return stats.isDirectory() ? undefined : p;
    if (dirname(p) === p) return undefined;
  }
}

/** A missing path can be created if its nearest existing ancestor is a writable folder. */
function creationProblem(path: string): string | undefined {
  for (let p = dirname(path); ; p = dirname(p)) {
    const stats = statOf(p);
    if (!(stats instanceof Error)) return stats.isDirectory() ? folderProblem(p) : `${p} is a file, not a folder`;
    if (!missing(stats) || dirname(p) === p) return refused(stats);
  }
}

function folderProblem(dir: string): string | undefined {
  const real = realpathSync(dir);
  if (KERNEL_FILESYSTEMS.has(statfsSync(real).type)) return `cannot write (${real} is a kernel filesystem)`;
  try {
    accessSync(real, constants.W_OK | constants.X_OK);
    return undefined;
  } catch (error) {
    return refused(error);
  }
}

function statOf(path: string): Stats | NodeJS.ErrnoException {
  try {
    return statSync(path);
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

/** Nothing there yet (or a file where a folder of the path would be). */
function missing(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ENOENT' || error.code === 'ENOTDIR';
}

function refused(error: unknown): string {
  return `cannot write (${fileErrorText(error, true)})`;
}
