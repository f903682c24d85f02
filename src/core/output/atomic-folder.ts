// A set of files that must appear together or not at all: all of them
// are written into a fresh hidden folder beside the target (same parent, so the
// renames stay on one filesystem), then that folder is swapped in by renames.
//
// What a reader of <parent>/<name> sees, and what a SIGKILL at any point leaves:
//   1. writing .bcsim-new-<pid>-<name>: the old set (or nothing) -- untouched;
//   2. old renamed to .bcsim-old-<pid>-<name>: no folder, for the instant
//      between two renames (Node has no renameat2 RENAME_EXCHANGE);
//   3. new renamed in: the new set, whole; then the hidden old one is deleted.
// Never a mix of old and new files in the folder (a reader opening the files
// one by one across a swap can still pair two versions: no rename prevents it).
// A SIGKILL in step 1 leaves a hidden new folder; in step 2 no folder, the
// hidden old one (whole) and the hidden new one; in step 3 a hidden old one
// beside the new set. The next run first puts a hidden old folder back if the
// folder is missing, then deletes the rest. Leftovers are recognised by a dead
// owner pid and deleted only if they hold nothing but report files. No signal
// handler is installed (the simulation is synchronous: it would delay Ctrl-C).
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isAlive, makeDirs, temporaryName, temporaryOwner } from './atomic-write.js';
import { OutPathError, foreignEntries, foreignMessage } from './out-dir.js';

export const NEW_PREFIX = '.bcsim-new-';
export const OLD_PREFIX = '.bcsim-old-';

export type SwapStep = 'file-written' | 'all-written' | 'old-aside' | 'new-placed' | 'old-removed';

let stepHook: ((step: SwapStep) => void) | undefined;

/** Test seam: called after each step; a throw there is a failure at exactly that point. */
export function setSwapStepHook(hook: ((step: SwapStep) => void) | undefined): void {
  stepHook = hook;
}

/** Replaces the folder `target` by one holding exactly `files` (name to content); returns their paths. */
export function writeFolderAtomic(target: string, files: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(files);
  const dir = resolveLink(resolve(target));
  const parent = dirname(dir);
  const name = basename(dir);
  makeDirs(parent);
  recoverLeftovers(parent, name, names);
  const fresh = join(parent, temporaryName(NEW_PREFIX, name));
  const aside = join(parent, temporaryName(OLD_PREFIX, name));
  let placed = false;
  let movedAside = false;
  try {
    rmSync(fresh, { recursive: true, force: true }); // ours, from an earlier failed call in this process
    mkdirSync(fresh);
    if (existsSync(dir)) chmodSync(fresh, statSync(dir).mode & 0o7777); // keep a private folder private
    for (const file of names) {
      writeFileSync(join(fresh, file), files[file] as string);
      stepHook?.('file-written');
    }
    stepHook?.('all-written');
    // Retried: a second bcsim writing the same folder may slip its own in between.
    for (let attempt = 0; !placed && attempt < 10; attempt++) {
      if (existsSync(dir)) {
        const foreign = foreignEntries(dir, names);
        if (foreign.length > 0) throw new OutPathError(foreignMessage(foreign));
        rmSync(aside, { recursive: true, force: true });
        if (!renamed(dir, aside)) continue;
        movedAside = true;
        stepHook?.('old-aside');
      }
      placed = renamed(fresh, dir);
    }
    if (!placed) throw new OutPathError('another process keeps replacing this folder; try again');
    stepHook?.('new-placed');
  } catch (error) {
    // Failing before the new set is in: put the old one back.
    if (!placed && movedAside && !existsSync(dir)) renameSync(aside, dir);
    throw error;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
    // Only once a whole set is in place may the hidden old one go.
    if (existsSync(dir)) rmSync(aside, { recursive: true, force: true });
  }
  stepHook?.('old-removed');
  return names.map((file) => join(target, file));
}

/** `false` when the rename lost a race (source gone, or the target reappeared). */
function renamed(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EEXIST' || code === 'ENOTEMPTY') return false;
    throw error;
  }
}

/** A symlinked report folder stays a symlink: the folder it points to is replaced. */
function resolveLink(dir: string): string {
  try {
    return lstatSync(dir).isSymbolicLink() ? realpathSync(dir) : dir;
  } catch {
    return dir;
  }
}

/** Puts back an old folder a killed run had moved aside, then deletes its other leftovers. */
function recoverLeftovers(parent: string, name: string, reportFiles: readonly string[]): void {
  const dir = join(parent, name);
  const stale = (prefix: string) =>
    readdirSync(parent)
      .filter((entry) => {
        const pid = temporaryOwner(prefix, entry, name);
        return (
          pid !== undefined && pid !== process.pid && !isAlive(pid) && onlyReportFiles(join(parent, entry), reportFiles)
        );
      })
      .map((entry) => join(parent, entry));
  for (const old of stale(OLD_PREFIX)) {
    if (!existsSync(dir) && renamed(old, dir)) continue;
    rmSync(old, { recursive: true, force: true });
  }
  for (const fresh of stale(NEW_PREFIX)) rmSync(fresh, { recursive: true, force: true });
}

function onlyReportFiles(path: string, reportFiles: readonly string[]): boolean {
  try {
    return lstatSync(path).isDirectory() && foreignEntries(path, reportFiles).length === 0;
  } catch {
    return false;
  }
}
