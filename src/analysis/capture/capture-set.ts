// One command's captures (`--pcap FILE [--pcap-plaintext]`): one file for run
// and trace, one per column for compare. Each capture is a CaptureFile (a
// temporary) with a CaptureRecorder streaming into it; `commit` finishes and
// renames them all only once every run has completed, `abort` removes them.
import { CaptureFile, abortAll, commitAll } from './capture-file.js';
import { CaptureRecorder } from './capture-recorder.js';
import type { CaptureOptions } from './capture-recorder.js';

export interface Capture {
  readonly file: CaptureFile;
  readonly recorder: CaptureRecorder;
}

export class CaptureSet {
  private readonly captures: Capture[] = [];
  private done = false;

  constructor(private readonly options: CaptureOptions = {}) {}

  /** Starts the capture that will become `target`; `comment` goes into its section header. */
  open(target: string, comment?: string): Capture {
    const file = new CaptureFile(target);
    let recorder: CaptureRecorder;
    try {
      recorder = new CaptureRecorder(file.write, { ...this.options, comment });
    } catch (error) {
      file.abort();
      throw error;
    }
    const capture = { file, recorder };
    this.captures.push(capture);
    return capture;
  }

  /** Writes what each recorder still holds, then renames every file into place. Returns the paths. */
  commit(): string[] {
    if (this.done) throw new Error('capture set already finished');
    this.done = true;
    try {
      for (const c of this.captures) c.recorder.finish();
    } catch (error) {
      abortAll(this.files());
      throw error;
    }
    commitAll(this.files());
    return this.captures.map((c) => c.file.target);
  }

  /** Removes every temporary; no target is touched. Safe to call more than once. */
  abort(): void {
    this.done = true;
    abortAll(this.files());
  }

  /** Runs `work`; if it throws, every capture is removed before the error goes on. */
  guard<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      this.abort();
      throw error;
    }
  }

  /** Each capture's hidden temporary and the target it would become. */
  paths(): Array<{ temporary: string; target: string }> {
    return this.captures.map((c) => ({ temporary: c.file.temporary, target: c.file.target }));
  }

  private files(): CaptureFile[] {
    return this.captures.map((c) => c.file);
  }
}
