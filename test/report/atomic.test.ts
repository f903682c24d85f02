// The report set is atomic, and no sweep deletes a live run's files.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NEW_PREFIX, OLD_PREFIX, setSwapStepHook, writeFolderAtomic } from '../../src/core/output/atomic-folder.js';
import type { SwapStep } from '../../src/core/output/atomic-folder.js';
import { TEMP_PREFIX, isAlive, sweepTemporaries, temporaryName } from '../../src/core/output/atomic-write.js';
import { runComparison } from '../../src/analysis/report/compare.js';
import { OutPathError, outDirProblem, outFileProblem } from '../../src/core/output/out-dir.js';
import { REPORT_FILES, writeReport } from '../../src/analysis/report/write.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { cpuMs } from '../support/cpu.js';

const STEPS: readonly SwapStep[] = ['file-written', 'all-written', 'old-aside', 'new-placed', 'old-removed'];

/** The report files, each holding `version`. */
const set = (version: string): Record<string, string> =>
  Object.fromEntries(REPORT_FILES.map((f) => [f, `${version} ${f}\n`]));

/** What a reader of `dir` sees: one whole version, "absent", or "mixed". */
function view(dir: string): string {
  if (!existsSync(dir)) return 'absent';
  const names = readdirSync(dir).sort();
  if (names.join() !== [...REPORT_FILES].sort().join()) return `mixed: ${names.join()}`;
  const versions = new Set(names.map((n) => readFileSync(join(dir, n), 'utf8').split(' ')[0]));
  return versions.size === 1 ? [...versions][0] : 'mixed';
}

/** A report folder holding v1, in a fresh parent. */
function oldReport(): { parent: string; dir: string } {
  const parent = mkdtempSync(join(tmpdir(), 'bcsim-atomic-'));
  const dir = join(parent, 'report');
  writeFolderAtomic(dir, set('v1'));
  return { parent, dir };
}

/** A pid that certainly belongs to no process: a child that has exited and been reaped. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid as number;
}

const children: ChildProcess[] = [];
/** Another live process, standing in for a second bcsim. */
function livePid(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(child);
  return child.pid as number;
}

afterEach(() => {
  setSwapStepHook(undefined);
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe('the report files appear together or not at all', () => {
  it('at every step a reader sees the whole old set, the whole new set, or (between two renames) no folder', () => {
    const { parent, dir } = oldReport();
    const seen: string[] = [];
    setSwapStepHook((step) => seen.push(`${step}: ${view(dir)}`));
    writeFolderAtomic(dir, set('v2'));
    expect(seen).toEqual([
      ...REPORT_FILES.map(() => 'file-written: v1'),
      'all-written: v1',
      'old-aside: absent',
      'new-placed: v2',
      'old-removed: v2',
    ]);
    expect(readdirSync(parent)).toEqual(['report']);
  });

  it.each(STEPS)('a failure injected at %s leaves one whole set and no leftovers', (at) => {
    const { parent, dir } = oldReport();
    const fault = new Error(`injected at ${at}`);
    let fired = 0;
    setSwapStepHook((step) => {
      if (step !== at) return;
      fired++;
      throw fault;
    });
    expect(() => writeFolderAtomic(dir, set('v2'))).toThrow(fault);
    expect(fired).toBe(1);
    expect(view(dir)).toBe(at === 'new-placed' || at === 'old-removed' ? 'v2' : 'v1');
    expect(readdirSync(parent)).toEqual(['report']);
  });

  // A real SIGKILL in a child (the built dist), then the next run: it must find
  // a whole set, put back an old folder the child had moved aside, and sweep.
  const distFolder = new URL('../../dist/core/output/atomic-folder.js', import.meta.url).href;
  it.each(STEPS)('a writer SIGKILLed at %s: the next run recovers and cleans up', (at) => {
    const { parent, dir } = oldReport();
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { setSwapStepHook, writeFolderAtomic } from ${JSON.stringify(distFolder)};
         setSwapStepHook((step) => { if (step === ${JSON.stringify(at)}) process.kill(process.pid, 'SIGKILL'); });
         writeFolderAtomic(${JSON.stringify(dir)}, ${JSON.stringify(set('v2'))});`,
      ],
      { encoding: 'utf8' },
    );
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL'); // the fault fired at that step
    const killedBetweenRenames = at === 'old-aside';
    expect(view(dir)).toBe(
      killedBetweenRenames ? 'absent' : at === 'file-written' || at === 'all-written' ? 'v1' : 'v2',
    );
    const leftovers = readdirSync(parent).filter((n) => n !== 'report');
    if (at !== 'old-removed') expect(leftovers.length).toBeGreaterThan(0);
    for (const n of leftovers)
      expect(n.startsWith(`${NEW_PREFIX}${child.pid}-`) || n.startsWith(`${OLD_PREFIX}${child.pid}-`)).toBe(true);

    const firstView: string[] = [];
    setSwapStepHook(() => {
      if (firstView.length === 0)
        firstView.push(view(dir), ...readdirSync(parent).filter((n) => !n.startsWith(`${NEW_PREFIX}${process.pid}-`)));
    });
    writeFolderAtomic(dir, set('v3'));
    expect(firstView).toEqual([
      killedBetweenRenames || at === 'file-written' || at === 'all-written' ? 'v1' : 'v2',
      'report',
    ]);
    expect(view(dir)).toBe('v3');
    expect(readdirSync(parent)).toEqual(['report']);
  });
});

describe('writeReport', () => {
  const comparison = runComparison(loadScenario('fragment-ack-bug'), { durationUs: 5_000_000 });

  it('replaces an existing report folder whole, old per-file temporaries included', () => {
    const { dir } = oldReport();
    writeFileSync(join(dir, temporaryName(TEMP_PREFIX, 'summary.json', deadPid())), 'half');
    const written = writeReport(dir, comparison);
    expect(written).toEqual(REPORT_FILES.map((f) => join(dir, f)));
    expect(readdirSync(dir).sort()).toEqual([...REPORT_FILES].sort());
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toContain('"schema": "bcsim.compare/1"');
  });

  it('refuses a folder holding anything else, and leaves it untouched', () => {
    for (const foreign of ['notes.txt', 'sub']) {
      const { parent, dir } = oldReport();
      if (foreign === 'sub') mkdirSync(join(dir, foreign));
      else writeFileSync(join(dir, foreign), 'mine');
      expect(() => writeReport(dir, comparison)).toThrow(OutPathError);
      expect(() => writeReport(dir, comparison)).toThrow(`holds files that are not a bcsim report (${foreign})`);
      expect(readdirSync(dir).sort()).toEqual([...REPORT_FILES, foreign].sort());
      expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('v1 summary.json\n');
      expect(readdirSync(parent)).toEqual(['report']);
    }
  });
});

describe('sweeping leftovers of killed runs', () => {
  it("isAlive: ESRCH means dead, EPERM (another user's process) means alive", () => {
    expect(isAlive(process.pid)).toBe(true);
    expect(isAlive(deadPid())).toBe(false);
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('EPERM'), { code: 'EPERM' });
    });
    try {
      expect(isAlive(1)).toBe(true);
    } finally {
      kill.mockRestore();
    }
  });

  it("removes a dead run's temporary file, never a live one's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-sweep-'));
    const live = temporaryName(TEMP_PREFIX, 'junit.xml', livePid());
    const dead = temporaryName(TEMP_PREFIX, 'junit.xml', deadPid());
    for (const n of [live, dead, 'junit.xml']) writeFileSync(join(dir, n), 'x');
    sweepTemporaries(dir);
    expect(readdirSync(dir).sort()).toEqual([live, 'junit.xml'].sort());
  });

  it("deletes a dead run's hidden folders, keeps a live run's, and never one holding foreign files", () => {
    const { parent, dir } = oldReport();
    const live = livePid();
    const [dead, deadWithNotes] = [deadPid(), deadPid()];
    const folder = (prefix: string, pid: number, extra?: string) => {
      const path = join(parent, temporaryName(prefix, 'report', pid));
      mkdirSync(path);
      writeFileSync(join(path, 'summary.json'), 'x');
      if (extra) writeFileSync(join(path, extra), 'mine');
      return temporaryName(prefix, 'report', pid);
    };
    const keep = [folder(NEW_PREFIX, live), folder(OLD_PREFIX, live), folder(NEW_PREFIX, deadWithNotes, 'notes.txt')];
    folder(NEW_PREFIX, dead);
    folder(OLD_PREFIX, dead);
    writeFolderAtomic(dir, set('v2'));
    expect(readdirSync(parent).sort()).toEqual(['report', ...keep].sort());
    expect(view(dir)).toBe('v2');
  });

  it('puts back an old folder that a killed run had moved aside, before replacing it', () => {
    const parent = mkdtempSync(join(tmpdir(), 'bcsim-aside-'));
    const dir = join(parent, 'report');
    const aside = join(parent, temporaryName(OLD_PREFIX, 'report', deadPid()));
    writeFolderAtomic(aside, set('v1'));
    const seen: string[] = [];
    setSwapStepHook((step) => seen.push(`${step}: ${view(dir)}`));
    writeFolderAtomic(dir, set('v2'));
    expect(seen[0]).toBe('file-written: v1');
    expect(readdirSync(parent)).toEqual(['report']);
  });
});

describe('output paths are checked before any work', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'bcsim-cwd-'));

  it('refuses an empty path, /proc, a path under a file, the current folder and foreign folders', () => {
    writeFileSync(join(cwd, 'file'), 'x');
    const started = cpuMs();
    expect(outDirProblem('', REPORT_FILES, cwd)).toMatch(/empty path/);
    expect(outDirProblem('/proc/x', REPORT_FILES, cwd)).toMatch(/kernel filesystem/);
    expect(outDirProblem('/proc/x/y/z', REPORT_FILES, cwd, true)).toMatch(/kernel filesystem/);
    expect(outDirProblem('/proc/x/y/z', REPORT_FILES, cwd)).toBe('the folder /proc/x/y does not exist');
    expect(outDirProblem('file/sub', REPORT_FILES, cwd)).toBe(`${join(cwd, 'file')} is a file, not a folder`);
    expect(outDirProblem('file/sub/deeper', REPORT_FILES, cwd)).toBe(`${join(cwd, 'file')} is a file, not a folder`);
    expect(outDirProblem('file', REPORT_FILES, cwd)).toBe('is a file, not a folder');
    expect(outDirProblem(cwd, REPORT_FILES, cwd)).toMatch(/holds files that are not a bcsim report \(file\)/);
    // No work was done (the CPU time, which a busy machine does not stretch); a hang would meet the test's timeout.
    expect(cpuMs() - started).toBeLessThan(2000);
  });

  it('accepts a new folder, an empty one and a report folder, creating nothing', () => {
    const empty = mkdtempSync(join(tmpdir(), 'bcsim-empty-'));
    expect(outDirProblem('a', REPORT_FILES, empty)).toBeUndefined();
    // A folder the user names may be new, not its parents; bcsim's own default places get theirs.
    expect(outDirProblem('a/b/c', REPORT_FILES, empty)).toBe(`the folder ${join(empty, 'a', 'b')} does not exist`);
    expect(outDirProblem('a/b/c', REPORT_FILES, empty, true)).toBeUndefined();
    expect(outDirProblem(empty, REPORT_FILES, cwd)).toBeUndefined();
    expect(outDirProblem('.', REPORT_FILES, empty)).toMatch(/current folder/);
    expect(outDirProblem(oldReport().dir, REPORT_FILES, cwd)).toBeUndefined();
    expect(readdirSync(empty)).toEqual([]);
  });

  it('a JUnit file: not empty, not a folder, not on /proc, and only in a folder that exists', () => {
    expect(outFileProblem('', cwd)).toMatch(/empty path/);
    expect(outFileProblem(cwd, cwd)).toBe('is a folder, not a file');
    expect(outFileProblem('/proc/junit.xml', cwd)).toMatch(/kernel filesystem/);
    expect(outFileProblem('file/junit.xml', cwd)).toMatch(/is a file, not a folder/);
    expect(outFileProblem('new.xml', cwd)).toBeUndefined();
    expect(outFileProblem('new/junit.xml', cwd)).toBe(`the folder ${join(cwd, 'new')} does not exist`);
    expect(outFileProblem('file/sub/junit.xml', cwd)).toBe(`${join(cwd, 'file')} is a file, not a folder`);
  });
});
