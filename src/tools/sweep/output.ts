// Where result lines go: a file written atomically (streamed into a hidden
// temporary beside it, renamed at the end, so a reader or a Ctrl-C never leaves
// half a file), or a callback (stdout). Lines are streamed, never held: a
// 100,000-run sweep keeps no more than one line in memory here.
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { makeDirs, TEMP_PREFIX, temporaryName, sweepTemporaries } from '../../core/output/index.js';

export interface LineSink {
  write(text: string): void;
  /** Makes the output final (renames the temporary over the target). */
  commit(): void;
  /** Removes what was written (the temporary); the target is untouched. */
  discard(): void;
}

export function fileSink(path: string): LineSink {
  const dir = dirname(path);
  makeDirs(dir);
  sweepTemporaries(dir, basename(path)); // leftovers of a killed earlier run of the same target
  const temp = join(dir, temporaryName(TEMP_PREFIX, basename(path)));
  let fd: number | undefined = openSync(temp, 'w');
  const close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  return {
    write(text) {
      if (fd === undefined) throw new Error('sweep output already closed');
      const bytes = Buffer.from(text, 'utf8');
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    },
    commit() {
      close();
      renameSync(temp, path);
    },
    discard() {
      close();
      rmSync(temp, { force: true });
    },
  };
}

export function callbackSink(write: (text: string) => void): LineSink {
  return { write, commit: () => undefined, discard: () => undefined };
}
