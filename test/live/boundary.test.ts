// The wall-clock driver is a second implementation of the
// engine's Scheduler; the transport, codec, link and traffic layers do not
// learn about sockets or real time. Checked on the source text.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulator, micros } from '../../src/core/engine/index.js';
import type { Scheduler } from '../../src/core/engine/index.js';
import { WallClock } from '../../src/live/wall-clock.js';

const SRC = join(import.meta.dirname, '../../src');
const FORBIDDEN: Array<[RegExp, string]> = [
  [/from '(node:)?dgram'/, 'a socket module'],
  [/from '(node:)?net'/, 'a network module'],
  [/process\.hrtime|performance\.now|Date\.now\(/, 'a clock read'],
  [/from '(\.\.\/)+live\//, 'the live layer'],
  [/setTimeout\(|setImmediate\(/, 'a Node timer'],
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The folder of src/ that holds `folderAndFile` (`engine/scheduler.ts`), wherever its group puts it. */
function folderHolding(folderAndFile: string): string {
  const hits = files(SRC).filter((f) => f.endsWith(`${sep}${folderAndFile.split('/').join(sep)}`));
  if (hits.length !== 1) throw new Error(`${folderAndFile}: ${hits.length} files in src/, expected one`);
  return relative(SRC, dirname(hits[0])).split(sep).join('/');
}

/** The simulation's folders, each named by a file it holds. */
const SIMULATION_LAYERS = [
  'engine/scheduler.ts',
  'codec/cipher.ts',
  'link/latency.ts',
  'transport/retransmit-queue.ts',
  'traffic/driver.ts',
  'session/fan-out.ts',
  'scenario/schema.ts',
].map(folderHolding);

describe('the live mode stays behind the engine interface', () => {
  for (const layer of SIMULATION_LAYERS) {
    it(`src/${layer} reads no clock, opens no socket and imports nothing from src/live`, () => {
      const found: string[] = [];
      for (const file of files(join(SRC, layer))) {
        const text = readFileSync(file, 'utf8');
        for (const [pattern, what] of FORBIDDEN)
          if (pattern.test(text)) found.push(`${file.slice(SRC.length + 1)}: ${what}`);
      }
      expect(found).toEqual([]);
    });
  }

  it('the check itself finds a clock read and a socket import (it can fail)', () => {
    const sample = "import { createSocket } from 'node:dgram';\nconst t = process.hrtime.bigint();";
    expect(FORBIDDEN.filter(([p]) => p.test(sample)).map(([, what]) => what)).toEqual([
      'a socket module',
      'a clock read',
    ]);
  });

  it('Simulator and WallClock are both the engine Scheduler', () => {
    const schedulers: Scheduler[] = [new Simulator(), new WallClock(() => micros(0))];
    for (const s of schedulers) {
      const fired: number[] = [];
      s.at(micros(0), () => fired.push(s.now));
      if (s instanceof Simulator) s.runUntil(micros(10));
      else (s as WallClock).catchUp();
      expect(fired).toEqual([0]);
    }
  });
});
