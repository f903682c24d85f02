// Opening a capture file for the reader (capture-reader.ts) without throwing and
// without waiting: a FIFO or a directory is refused, not read.
import { closeSync, constants as fsConstants, fstatSync, openSync } from 'node:fs';
import type { CaptureError, ReaderOptions } from './capture-packet.js';
import { CaptureReader } from './capture-reader.js';
import { fileErrorText } from '../files/index.js';
import { closeQuietly } from './file-window.js';

/** A FIFO's open waits for a writer; non-blocking, it returns at once and fstat refuses it (a file ignores the flag). */
const READ_WITHOUT_WAITING = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

export type OpenResult =
  | { readonly ok: true; readonly reader: CaptureReader }
  | { readonly ok: false; readonly error: CaptureError };

/** Opens a capture file and reads its header. Never throws. */
export function openCapture(path: string, options: ReaderOptions = {}): OpenResult {
  let fd: number;
  try {
    fd = openSync(path, READ_WITHOUT_WAITING);
  } catch (error) {
    return { ok: false, error: { code: 'io', offset: 0, reason: `cannot open (${fileErrorText(error)})` } };
  }
  let size: number;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      closeSync(fd);
      return {
        ok: false,
        error: { code: 'not-a-file', offset: 0, reason: stat.isDirectory() ? 'is a directory' : 'not a regular file' },
      };
    }
    size = stat.size;
  } catch (error) {
    closeQuietly(fd);
    return { ok: false, error: { code: 'io', offset: 0, reason: `cannot stat (${fileErrorText(error)})` } };
  }
  const reader = new CaptureReader(fd, size, options);
  const error = reader.start();
  if (error !== null) {
    reader.close();
    return { ok: false, error };
  }
  return { ok: true, reader };
}
