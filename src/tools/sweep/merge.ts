// `bcsim sweep-merge`: shards back into the file one machine would have written.
// Each shard is in index order, so a k-way merge streams them with one line per
// file in memory. A first pass checks everything (one grid, no duplicate, none
// missing, each file in order); only then does the second pass write.
import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { SweepInputError } from './errors.js';
import { fileErrorText } from '../../core/files/index.js';

/** A result line longer than this is not one of ours (a line is ~1 KB). */
const MAX_LINE_BYTES = 1024 * 1024;
const MAX_MERGE_FILES = 100_000;

interface Head {
  readonly index: number;
  readonly grid: string;
  readonly runs: number;
  readonly text: string;
  readonly line: number;
}

/** Reads a file line by line in 64 KiB chunks. */
class LineReader {
  private fd: number;
  private buffer = Buffer.alloc(0);
  private eof = false;
  lineNumber = 0;

  constructor(
    readonly label: string,
    path: string,
  ) {
    try {
      this.fd = openSync(path, 'r');
    } catch (error) {
      throw new SweepInputError(`${label}: cannot read (${fileErrorText(error)})`);
    }
  }

  next(): string | undefined {
    for (;;) {
      const nl = this.buffer.indexOf(10);
      if (nl >= 0) {
        const text = this.buffer.subarray(0, nl).toString('utf8');
        this.buffer = this.buffer.subarray(nl + 1);
        this.lineNumber++;
        return text;
      }
      if (this.buffer.length > MAX_LINE_BYTES)
        throw new SweepInputError(
          `${this.label}:${this.lineNumber + 1}: a line of more than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes is not a sweep result`,
        );
      if (this.eof) {
        if (this.buffer.length === 0) return undefined;
        const text = this.buffer.toString('utf8');
        this.buffer = Buffer.alloc(0);
        this.lineNumber++;
        return text;
      }
      const chunk = Buffer.alloc(64 * 1024);
      let n: number;
      try {
        n = readSync(this.fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new SweepInputError(`${this.label}: cannot read (${fileErrorText(error)})`);
      }
      if (n === 0) this.eof = true;
      else this.buffer = Buffer.concat([this.buffer, chunk.subarray(0, n)]);
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

function parseHead(reader: LineReader): Head | undefined {
  const text = reader.next();
  if (text === undefined) return undefined;
  const where = `${reader.label}:${reader.lineNumber}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SweepInputError(`${where}: not a JSON line`);
  }
  const v = value as { index?: unknown; grid?: unknown; runs?: unknown };
  if (
    value === null ||
    typeof value !== 'object' ||
    !Number.isSafeInteger(v.index) ||
    typeof v.grid !== 'string' ||
    !Number.isSafeInteger(v.runs)
  ) {
    throw new SweepInputError(`${where}: not a bcsim sweep result line (expected index, grid and runs)`);
  }
  return { index: v.index as number, grid: v.grid, runs: v.runs as number, text, line: reader.lineNumber };
}

/** One pass over the files in index order; `emit` gets each line's text (without newline). */
function mergePass(
  files: readonly string[],
  cwd: string,
  emit: (text: string) => void,
): { runs: number; grid: string } {
  if (files.length === 0) throw new SweepInputError('sweep-merge: name at least one result file');
  if (files.length > MAX_MERGE_FILES)
    throw new SweepInputError(`sweep-merge: at most ${MAX_MERGE_FILES.toLocaleString('en-US')} files`);
  const readers = files.map((f) => new LineReader(f, resolve(cwd, f)));
  try {
    const heads = readers.map(parseHead);
    const first = heads.findIndex((h) => h !== undefined);
    if (first < 0) throw new SweepInputError(`${files[0]}: no result lines`);
    const { grid, runs } = heads[first] as Head;
    const from = { file: files[first], line: (heads[first] as Head).line };
    let expected = 0;
    let last = { index: -1, where: '' };
    for (;;) {
      // The smallest index among the heads (ties: a duplicate, caught below).
      let k = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h === undefined) continue;
        if (h.grid !== grid || h.runs !== runs) {
          throw new SweepInputError(
            `${files[i]}:${h.line}: a different sweep (grid ${h.grid}, ${h.runs} runs) than ${from.file}:${from.line} (grid ${grid}, ${runs} runs)`,
          );
        }
        if (k < 0 || h.index < (heads[k] as Head).index) k = i;
      }
      if (k < 0) break;
      const h = heads[k] as Head;
      if (h.index === last.index)
        throw new SweepInputError(
          `${files[k]}:${h.line}: run ${h.index} is also at ${last.where} (a duplicate; merge each shard once)`,
        );
      if (h.index < expected)
        throw new SweepInputError(
          `${files[k]}:${h.line}: run ${h.index} comes after a later run (the file is out of index order)`,
        );
      if (h.index >= runs)
        throw new SweepInputError(`${files[k]}:${h.line}: index ${h.index} is outside the grid of ${runs} runs`);
      if (h.index > expected)
        throw new SweepInputError(
          `sweep-merge: run ${expected} of ${runs} is in none of the files (first missing index; merge every shard)`,
        );
      emit(h.text);
      last = { index: h.index, where: `${files[k]}:${h.line}` };
      expected++;
      heads[k] = parseHead(readers[k]);
    }
    if (expected < runs)
      throw new SweepInputError(
        `sweep-merge: run ${expected} of ${runs} is in none of the files (first missing index; merge every shard)`,
      );
    return { runs, grid };
  } finally {
    for (const r of readers) r.close();
  }
}

/** Checks the shards, then streams the merged lines (each with its newline) to `write`. */
export function mergeShards(
  files: readonly string[],
  cwd: string,
  write: (text: string) => void,
): { runs: number; grid: string } {
  mergePass(files, cwd, () => undefined);
  return mergePass(files, cwd, (text) => write(`${text}\n`));
}
