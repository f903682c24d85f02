// The binary's start-up (src/cli/code-cache.ts): the CommonJS bundle with the V8 code
// cache the build recorded. V8 takes every recorded cache under the flags it was made
// for, and the CLI prints the same without one, with a rejected one, or without the bundle.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'dist/cli/main.js');
const SHEBANG_FLAGS = /^#!.*?\bnode\b(.*)$/m.exec(readFileSync(MAIN, 'utf8').split('\n', 1)[0])?.[1].trim().split(/\s+/) ?? [];
const RUN = ['run', 'lossy-link', '--duration', '1s', '--json'];
const BAD = ['run', 'test/scenarios/malformed/loss-high.json'];

/** In a node started with `flags` (and the probe's own -e): each cached chunk of the cache folder for those flags, and whether V8 took its cache. */
function cacheVerdicts(flags: string[]): Record<string, boolean> {
  const probe = `
    import { basename, join } from 'node:path';
    import { readdirSync } from 'node:fs';
    import { cacheDir, compileChunk, BUNDLE_ENTRY } from ${JSON.stringify(join(ROOT, 'dist/cli/code-cache.js'))};
    const dir = cacheDir(${JSON.stringify(flags)}), cli = join(BUNDLE_ENTRY, '..'), verdicts = {};
    for (const cache of readdirSync(dir)) verdicts[cache] = compileChunk(join(cli, basename(cache, '.cache')), join(dir, cache)).cachedDataRejected === false;
    process.stdout.write(JSON.stringify(verdicts));`;
  const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', probe], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Record<string, boolean>;
}

function cli(main: string, args: string[]) {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the code cache the build recorded', () => {
  it('is there for node without flags and with the bin shebang flags, one file per chunk a run loads', () => {
    expect(SHEBANG_FLAGS).toEqual(['--max-old-space-size=896']);
    for (const folder of ['no-flags', 'max-old-space-size=896']) {
      const caches = readdirSync(join(ROOT, 'dist/cli/code-cache', folder));
      expect(caches).toContain('start.cjs.cache');
      expect(caches.filter((c) => /^chunk-\w+\.cjs\.cache$/.test(c)).length).toBeGreaterThan(3);
    }
  });

  it('is taken by V8 under the flags it was recorded with, and refused under others', () => {
    for (const flags of [[], SHEBANG_FLAGS]) {
      const verdicts = cacheVerdicts(flags);
      expect(Object.keys(verdicts).length).toBeGreaterThan(4);
      expect(Object.entries(verdicts).filter(([, taken]) => !taken)).toEqual([]);
    }
    // The cache of one flag set compiled under the other: V8 checks the flags, so the loader keys caches by them.
    const crossed = spawnSync(process.execPath, ['--input-type=module', '-e', `
      import { join } from 'node:path';
      import { cacheDir, compileChunk, BUNDLE_ENTRY } from ${JSON.stringify(join(ROOT, 'dist/cli/code-cache.js'))};
      process.stdout.write(String(compileChunk(BUNDLE_ENTRY, join(cacheDir(${JSON.stringify(SHEBANG_FLAGS)}), 'start.cjs.cache')).cachedDataRejected));`], { encoding: 'utf8' });
    expect(crossed.stdout).toBe('true');
  });
});

describe('without a usable cache, or without the bundle, the CLI prints the same', () => {
  // A copy of the built package, so the real dist/ is never touched.
  const copy = mkdtempSync(join(tmpdir(), 'bcsim-code-cache-'));
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
  for (const link of ['scenarios', 'node_modules', 'test']) symlinkSync(join(ROOT, link), join(copy, link));
  const main = join(copy, 'dist/cli/main.js');
  const expected = { run: cli(MAIN, RUN), bad: cli(MAIN, BAD), help: cli(MAIN, ['--help']) };
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('the real build: a run, a bad file (one line, exit 2) and --help', () => {
    expect(expected.run.status).toBe(0);
    expect(JSON.parse(expected.run.stdout).scenario).toBe('lossy-link');
    expect(expected.bad).toEqual({ status: 2, stdout: '', stderr: 'bcsim: test/scenarios/malformed/loss-high.json: link.clientToServer.loss: expected a number between 0 and 1, got "high"\n' });
    expect(expected.help.stdout).toContain('Usage: bcsim');
  });

  it('with caches V8 rejects (garbage in every file)', () => {
    const dir = join(copy, 'dist/cli/code-cache/no-flags');
    for (const cache of readdirSync(dir)) writeFileSync(join(dir, cache), Buffer.alloc(4096, 7));
    expect(cli(main, RUN)).toEqual(expected.run);
    expect(cli(main, BAD)).toEqual(expected.bad);
  });

  it('with no cache at all', () => {
    rmSync(join(copy, 'dist/cli/code-cache'), { recursive: true });
    expect(cli(main, RUN)).toEqual(expected.run);
    expect(cli(main, ['--help'])).toEqual(expected.help);
  });

  it('without the bundle (tsc alone): from the compiled modules', () => {
    rmSync(join(copy, 'dist/cli/start.cjs'));
    expect(cli(main, RUN)).toEqual(expected.run);
    expect(cli(main, BAD)).toEqual(expected.bad);
  });
});

describe('the bin: main.ts bundled as CommonJS (dist/cli/main.cjs)', () => {
  const bin = join(ROOT, (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { bcsim: string } }).bin.bcsim);
  const firstLine = (file: string) => readFileSync(file, 'utf8').split('\n', 1)[0];

  it('is what package.json names, with main.js’s shebang and no ES module syntax', () => {
    expect(bin).toBe(join(ROOT, 'dist/cli/main.cjs'));
    expect(firstLine(bin)).toBe(firstLine(MAIN));
    expect(readFileSync(bin, 'utf8')).not.toMatch(/^\s*(import|export)\s/m);
  });

  it('prints what main.js prints: a run, a bad file and --help', () => {
    for (const args of [RUN, BAD, ['--help']]) expect(cli(bin, args)).toEqual(cli(MAIN, args));
  });
});

describe('a short run loads only the built-in modules it needs', () => {
  /** The built-in modules a CLI process loaded, read at its exit by a preloaded script. */
  function builtinsLoaded(args: string[]): string[] {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-builtins-'));
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => process.stderr.write(JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)))));`);
    const r = spawnSync(process.execPath, ['--require', probe, join(ROOT, 'dist/cli/main.cjs'), ...args], { encoding: 'utf8', cwd: ROOT });
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(0);
    // The probe's list is the last line (a run may warn before it, e.g. of a cut phase plan).
    return JSON.parse(r.stderr.split('\n').at(-1) as string) as string[];
  }

  it('a 1 s run never starts child_process', () => {
    const loaded = builtinsLoaded(RUN);
    expect(loaded).toContain('fs'); // the probe sees the run's modules
    expect(loaded).not.toContain('child_process');
  });
});
