// Typed time. Conversions between µs, ms and s (the 1000 and
// 1e6 factors) are written once, in src/core/engine/time.ts; everywhere else calls
// them. This test reads every file of src/ and fails on a `* 1000`, `/ 1000`,
// `* 1e6` or `/ 1e6` (any spelling) outside time.ts.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceText } from './layers.js';
import { TIME_MODULE, TIME_UNIT_EXCEPTIONS, checkTimeUnits, timeConversions } from './time-units.js';

const ROOT = join(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const SRC: SourceText[] = files(join(ROOT, 'src')).map((file) => ({
  path: relative(ROOT, file).split(sep).join('/'),
  text: readFileSync(file, 'utf8'),
}));

describe('time units in src/', () => {
  it('no file but src/core/engine/time.ts multiplies or divides by 1000 or 1e6', () => {
    expect(SRC.length).toBeGreaterThan(100);
    expect(checkTimeUnits(SRC).map((f) => f.message)).toEqual([]);
  });

  it('time.ts is where the conversions are', () => {
    const time = SRC.find((f) => f.path === TIME_MODULE);
    expect(time).toBeDefined();
    expect(timeConversions(TIME_MODULE, time?.text ?? '').length).toBeGreaterThan(5);
  });

  it('every exception names a file that exists and says why', () => {
    for (const x of TIME_UNIT_EXCEPTIONS) {
      expect(SRC.some((f) => f.path === x.file)).toBe(true);
      expect(x.reason.length).toBeGreaterThan(10);
    }
  });
});

describe('the time-unit check can fail (planted in memory, never on disk)', () => {
  const plant = (text: string) =>
    checkTimeUnits([...SRC, { path: 'src/model/metrics/planted.ts', text }]).filter(
      (f) => f.file === 'src/model/metrics/planted.ts',
    );

  it('reports a planted `nowUs / 1e6`', () => {
    const findings = plant('export const seconds = (nowUs: number) => nowUs / 1e6;\n');
    expect(findings.map((f) => f.message)).toEqual([
      'src/model/metrics/planted.ts:1: `nowUs / 1e6` converts a unit by hand (/ 1e6): use a conversion from src/core/engine/time.ts (msToUs, usToSeconds, …), or a named constant if it is not time',
    ]);
  });

  it('reports every spelling and both sides, assignments and the named factors', () => {
    const text = [
      'let a = ms * 1000;',
      'let b = us / 1_000;',
      'let c = 1_000_000 * s;',
      'let d = 1e6 / perSecond;',
      'let e = (ns / 1000n);',
      'a *= 1e3;',
      'let f = us * 1e-6;',
      'let g = s * US_PER_SECOND;',
      'let h = Math.round(ms * 1000) / 1000;',
    ].join('\n');
    expect(plant(text).map((f) => f.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 9]);
  });

  it('ignores comments, strings, other factors and time.ts itself', () => {
    const text = [
      '// t / 1e6 in a comment',
      "const s = 'x * 1000';",
      'const kb = bytes / 1024;',
      'const m = s * 60;',
      'const n = 1_000_000;',
    ].join('\n');
    expect(plant(text)).toEqual([]);
    expect(checkTimeUnits([{ path: TIME_MODULE, text: 'export const s = (us: number) => us / 1e6;' }])).toEqual([]);
  });

  it('an exception covers exactly its expression in its file', () => {
    const files = [{ path: 'src/model/metrics/planted.ts', text: 'const a = x * 1000;\nconst b = y * 1000;\n' }];
    const exceptions = [
      { file: 'src/model/metrics/planted.ts', expression: 'x * 1000', reason: 'planted: not a time' },
    ];
    expect(checkTimeUnits(files, exceptions).map((f) => f.expression)).toEqual(['y * 1000']);
  });
});
