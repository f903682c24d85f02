// `bcsim shrink <repro>`: the smallest run that still fails the same way (src/tools/shrink). Thin
// shell: reads the repro line (argument or --file), checks the flags and the output path up
// front, runs the shrinker and writes the scenario, its trace and its pcapng.
import { msToSeconds } from '../../core/engine/index.js';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  DEFAULT_BUDGET,
  ShrinkError,
  shrink,
  parseShrinkLine,
  filesFor,
  finishDocument,
  writeShrunk,
} from '../../tools/shrink/index.js';
import { captureTargetProblem } from '../../analysis/capture/index.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import { fileErrorText } from '../../core/files/index.js';

export interface ShrinkFlags {
  file?: string;
  out?: string;
  budget?: string;
}

/** A repro line is one line; a file holding it is small. */
const MAX_REPRO_BYTES = 1024 * 1024;

export function shrinkCommand(repro: string | undefined, flags: ShrinkFlags, io: CliIO): number {
  if ((repro === undefined) === (flags.file === undefined))
    throw new UsageError('give the repro line as one argument or --file FILE, not both or neither');
  const line = repro ?? readRepro(flags.file as string, io.cwd);
  const budget = flags.budget === undefined ? DEFAULT_BUDGET : Number(flags.budget);
  if (flags.budget !== undefined && !(/^\d+$/.test(flags.budget) && budget >= 1 && budget <= 1_000_000))
    throw new UsageError(`--budget: expected a whole number of runs 1..1,000,000, got "${flags.budget}"`);
  if (flags.out === '')
    throw new UsageError('--out FILE: where to write the shrunk scenario (FILE.trace and FILE.pcapng go beside it)');
  let input;
  try {
    input = parseShrinkLine(line, io.cwd);
  } catch (error) {
    throw new UsageError(`repro: ${(error as Error).message}`);
  }
  // The line swarm prints runs as printed: without --out, the files go into the working directory.
  const out = flags.out ?? defaultOut(line, input);
  const files = filesFor(out, io.cwd);
  const problem = captureTargetProblem(files.pcap, io.cwd);
  if (problem !== undefined) throw new UsageError(`--out ${out}: ${problem}`);
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false';
  const live = io.stderrIsTTY && !ci;
  const t0 = performance.now(); // wall clock: CLI only
  let result;
  try {
    result = shrink({
      ...input,
      budget,
      onProgress: live
        ? (used, max, faults) => io.stderr(`\rshrink: ${used}/${max} runs, ${faults} faults left   `)
        : undefined,
    });
  } catch (error) {
    if (error instanceof ShrinkError) {
      io.stderr(`bcsim: shrink: ${error.message}\n`);
      return EXIT_FAILED;
    }
    throw error;
  } finally {
    if (live) io.stderr('\r\x1b[2K');
  }
  const wallS = msToSeconds(performance.now() - t0);
  const invariant = result.target.split('/')[0];
  const doc = finishDocument(result.shrunk, line.trim(), result.target, invariant);
  writingTo(`--out ${out}`, () => writeShrunk(doc, files));

  const { before, after } = result;
  const kinds = (k: Record<string, number>) =>
    Object.entries(k)
      .map(([name, n]) => `${n} ${name}`)
      .join(', ') || 'none';
  io.stdout(
    [
      `fails: ${result.target}`,
      `replay: the recorded fault list alone gives the same run (trace hash ${result.replayHash.slice(0, 16)}) and the same failure`,
      `faults: ${before.events} recorded events + ${before.configured} configured → ${after.events} events + ${after.configured} configured`,
      `  before: ${kinds(before.byKind)}`,
      `  after:  ${kinds(after.byKind)}`,
      `duration: ${result.durationBeforeS} s → ${result.durationAfterS} s`,
      `runs: ${result.runs} of the budget of ${budget}, ${result.rounds} round${result.rounds === 1 ? '' : 's'}, ${wallS.toFixed(1)} s`,
      `wrote ${files.scenario}, ${files.trace}, ${files.pcap}`,
      `check it: bcsim run ${files.scenario} --json   (or bcsim check ${files.scenario}: exit 1)`,
    ].join('\n') + '\n',
  );
  return EXIT_OK;
}

/** shrunk-swarm-<G>-<I>.json for a swarm line, shrunk-<scenario>-seed-<N>.json for a run line. */
export function defaultOut(line: string, input: ReturnType<typeof parseShrinkLine>): string {
  if (/^(swarm:\s*)?bcsim\s+swarm\b/.test(line.trim()))
    return `shrunk-swarm-${input.spec.generatorSeed}-${input.spec.index}.json`;
  const name = basename(input.base)
    .replace(/\.json$/, '')
    .replace(/[^A-Za-z0-9_.-]/g, '_');
  return `shrunk-${name}-seed-${input.seed}.json`;
}

function readRepro(file: string, cwd: string): string {
  try {
    const text = readFileSync(file.startsWith('/') ? file : `${cwd}/${file}`, 'utf8');
    if (text.length > MAX_REPRO_BYTES)
      throw new UsageError(`--file ${file}: more than ${MAX_REPRO_BYTES} bytes; expected one repro line`);
    const lines = text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    if (lines.length !== 1)
      throw new UsageError(`--file ${file}: expected exactly one repro line, found ${lines.length}`);
    return lines[0];
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--file ${file}: cannot read (${fileErrorText(error)})`);
  }
}
