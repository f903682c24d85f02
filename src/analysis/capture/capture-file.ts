// Capture files on disk: streamed into a hidden temporary
// beside the target (`.bcsim-tmp-<pid>-<name>`, as core/output/atomic-write.ts names
// them) and renamed over the target only when the run has finished, so the
// target never holds part of a capture. A run that fails, or that Ctrl-C
// stops (src/cli/interrupt.ts), removes its temporary; one killed outright
// leaves it, and the next bcsim writing a capture to the same file sweeps it.
// Several files (compare) are all written before any is renamed.
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { TEMP_PREFIX, sweepTemporaries, temporaryName, outFileProblem } from '../../core/output/index.js';

/** Why a capture cannot be written at `file` (relative to `cwd`); undefined if it can. Creates nothing. */
export function captureTargetProblem(file: string, cwd: string): string | undefined {
  if (file === '') return 'an empty path names no file';
  const path = resolve(cwd, file);
  // The capture is renamed over the target: a device, pipe or socket there would be replaced, never written.
  if (existsSync(path) && !statSync(path).isFile() && !statSync(path).isDirectory())
    return 'is not a regular file (a device, pipe or socket); name a file';
  return outFileProblem(path, cwd);
}

/**
 * One file per compare column: the label goes before the extension
 * (`out.pcapng` → `out.stock.pcapng`; no extension: `out` → `out.stock`).
 * Characters other than letters, digits, `.`, `_` and `-` become `-`
 * (`cause:partial-ack` → `cause-partial-ack`).
 */
export function columnCapturePath(file: string, label: string): string {
  const safe = label.replace(/[^A-Za-z0-9._-]/g, '-');
  const ext = extname(basename(file));
  return ext === '' ? `${file}.${safe}` : `${file.slice(0, file.length - ext.length)}.${safe}${ext}`;
}

/** A capture being written: a temporary until `commit` renames it into place. */
export class CaptureFile {
  readonly target: string;
  readonly temporary: string;
  private fd: number | null;
  /** Bytes written so far. */
  size = 0;

  constructor(target: string) {
    this.target = resolve(target);
    const dir = dirname(this.target);
    const name = basename(this.target);
    sweepTemporaries(dir, name); // leftovers of killed runs, never a live bcsim's
    this.temporary = join(dir, temporaryName(TEMP_PREFIX, name));
    this.fd = openSync(this.temporary, 'w', 0o644);
  }

  /** The sink for a PcapngWriter: writes each chunk at once (synchronously). */
  readonly write = (chunk: Uint8Array): void => {
    if (this.fd === null) throw new Error(`capture ${this.target}: already closed`);
    let offset = 0;
    while (offset < chunk.length) offset += writeSync(this.fd, chunk, offset, chunk.length - offset);
    this.size += chunk.length;
  };

  /** Closes the temporary (it stays a temporary). */
  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    closeSync(fd);
  }

  /** Closes and renames the temporary over the target. */
  commit(): void {
    this.close();
    renameSync(this.temporary, this.target);
  }

  /** Closes and deletes the temporary; the target is untouched. Never throws. */
  abort(): void {
    try {
      this.close();
    } catch {
      // Closing failed: the removal below still applies.
    }
    rmSync(this.temporary, { force: true });
  }
}

/**
 * Finishes a set of captures together: every temporary is closed (any error
 * there removes them all, so none appears), then each is renamed into place.
 */
export function commitAll(files: readonly CaptureFile[]): void {
  try {
    for (const f of files) f.close();
  } catch (error) {
    abortAll(files);
    throw error;
  }
  for (const f of files) f.commit();
}

export function abortAll(files: readonly CaptureFile[]): void {
  for (const f of files) f.abort();
}
