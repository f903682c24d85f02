// `bcsim sweep` and `bcsim sweep-merge`: a thin shell over src/tools/sweep.
// Flags are all checked before the first run; bad input is one line and exit 2.
import { basename, dirname } from 'node:path';
import { writeFileAtomic, terminalStyle } from '../../core/output/index.js';
import { formatDuration, msToSeconds } from '../../core/engine/index.js';
import type { Tinypool } from 'tinypool';
import {
  MAX_JOBS,
  RunFailure,
  startPool,
  SweepInputError,
  callbackSink,
  fileSink,
  mergeShards,
  parseModes,
  parseSeeds,
  parseShard,
  parseVary,
  planSweep,
  renderSweepTable,
  runSweep,
  sweepHtml,
} from '../../tools/sweep/index.js';
import type { SweepPlan } from '../../tools/sweep/index.js';
import { describeSeeds } from '../../analysis/check/index.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import { durationFlag, jobsFlag, probabilityFlag, seedFlag } from '../options.js';
import { outFileFlag } from '../out-file.js';
import { blameEdits, editSet, modeSpec, switchSets } from '../switch-flags.js';
import type { Edit, FlagEdit } from '../switch-flags.js';
import type { PresetName } from '../../model/transport/index.js';
import { deprecated } from '../deprecated.js';
import { warn } from '../warnings.js';
import { EXIT_INTERRUPTED } from '../interrupt.js';
import { availableParallelism } from 'node:os';

export interface SweepFlags {
  seeds?: string;
  seed?: string;
  loss?: string;
  vary?: string[];
  mode?: string;
  modes?: string;
  duration?: string;
  set?: string[];
  switch?: string[];
  jobs?: string;
  out?: string;
  shard?: string;
  metrics?: string;
  html?: string;
  json?: boolean;
}

export interface SweepMergeFlags {
  out?: string;
}

/** --seeds LIST, or --seed N as the one seed (as check takes them); undefined: the scenario's seed. */
function seedsOf(flags: SweepFlags): number[] | undefined {
  if (flags.seed !== undefined && flags.seeds !== undefined)
    throw new SweepInputError('--seeds: give either --seed or --seeds, not both');
  if (flags.seed !== undefined) return [seedFlag(flags.seed) as number];
  return flags.seeds === undefined ? undefined : parseSeeds(flags.seeds);
}

/**
 * `--mode M` (one mode, switches and all, as run takes it) or `--modes LIST` (presets, one grid
 * column each); `--mode stock,fixed` is the old spelling of `--modes stock,fixed`.
 */
function modesOf(flags: SweepFlags, io: CliIO): { presets: PresetName[] | undefined; sets: FlagEdit[] } {
  if (flags.mode !== undefined && flags.modes !== undefined)
    throw new UsageError('--modes: give --mode (one mode) or --modes (several), not both');
  if (flags.modes !== undefined) return { presets: usage(() => parseModes(flags.modes as string), []), sets: [] };
  if (flags.mode === undefined) return { presets: undefined, sets: [] };
  if (flags.mode.includes(',')) {
    deprecated(io, `sweep --mode ${flags.mode} is now --modes ${flags.mode}`);
    return { presets: usage(() => parseModes(flags.mode as string), []), sets: [] };
  }
  const spec = modeSpec(flags.mode);
  return { presets: [spec.preset as PresetName], sets: spec.sets };
}

export async function sweepCommand(ref: string, flags: SweepFlags, io: CliIO): Promise<number> {
  const jobs = jobsFlag(flags.jobs, MAX_JOBS) ?? availableParallelism();
  // The worker threads load the simulator while this thread checks every input.
  const pool = jobs > 1 ? startPool(jobs) : undefined;
  try {
    return await sweepWith(ref, flags, io, jobs, pool);
  } finally {
    await pool?.destroy();
  }
}

async function sweepWith(
  ref: string,
  flags: SweepFlags,
  io: CliIO,
  jobs: number,
  pool: Tinypool | undefined,
): Promise<number> {
  const modes = modesOf(flags, io);
  const edits = [...(flags.set ?? []), ...modes.sets, ...switchSets(flags.switch)];
  const plan = usage(
    () =>
      planSweep({
        ref,
        cwd: io.cwd,
        sets: edits.map(editSet),
        modes: modes.presets,
        varies: (flags.vary ?? []).map(parseVary),
        seeds: seedsOf(flags),
        loss: probabilityFlag('--loss', flags.loss),
        durationUs: durationFlag('--duration', flags.duration, { clock: 'simulated' }),
        metrics: flags.metrics === undefined ? undefined : flags.metrics.split(',').map((m) => m.trim()),
        shard: flags.shard === undefined ? undefined : parseShard(flags.shard),
      }),
    edits,
  );
  const toFile = flags.out !== undefined && flags.out !== '-';
  if (toFile && flags.json === true)
    throw new UsageError(`--json: the lines go to stdout with --json and to FILE with --out FILE; give one`);
  const out = toFile ? outFileFlag('--out', flags.out, io.cwd) : undefined;
  const html = outFileFlag('--html', flags.html, io.cwd);
  const lines = linesTo(flags, io);

  const sink =
    lines === 'file'
      ? writingTo(`--out ${flags.out}`, () => fileSink(out as string))
      : callbackSink(lines === 'stdout' ? (text) => io.stdout(text) : () => {});
  const controller = new AbortController();
  const stopListening = io.onInterrupt?.(() => controller.abort());
  const progress = progressLine(io, plan);
  let outcome;
  try {
    outcome = await runSweep(plan, { jobs, pool, sink, signal: controller.signal, onProgress: progress?.update });
  } catch (error) {
    if (error instanceof RunFailure) throw runFailureUsage(plan, error);
    throw error;
  } finally {
    progress?.done();
    stopListening?.();
  }
  if (outcome.status === 'aborted') {
    io.stderr(`bcsim: sweep interrupted after ${outcome.done} of ${plan.shardRuns} runs; nothing written\n`);
    return EXIT_INTERRUPTED;
  }
  warn(io, outcome.cuts);
  // The table goes where the lines do not: stdout, unless the lines are on it.
  const tableOut = (text: string) => (lines === 'stdout' ? io.stderr(text) : io.stdout(text));
  const style = terminalStyle(lines === 'stdout' ? io.stderrIsTTY : io.stdoutIsTTY, io.env);
  const text = renderSweepTable(outcome.summary, title(plan), style);
  if (lines === 'file') tableOut(`${text}wrote ${flags.out}: ${outcome.done} lines\n`);
  else tableOut(text);
  if (html !== undefined) {
    writingTo(`--html ${flags.html}`, () =>
      writeFileAtomic(dirname(html), basename(html), sweepHtml(outcome.summary, pageInfo(plan))),
    );
    if (lines === 'none') tableOut(`wrote ${flags.html}; no JSON lines (--out FILE or --json for them)\n`);
  }
  return outcome.summary.failed > 0 ? EXIT_FAILED : EXIT_OK;
}

/**
 * Where the JSON lines go: FILE with --out FILE; stdout with --json or --out -, or by default into a
 * pipe or file (scripts read them there); nowhere on a terminal or with --html, where the reader
 * wants the summary table (on stdout) and the page, not a screenful of JSON.
 */
function linesTo(flags: SweepFlags, io: CliIO): 'file' | 'stdout' | 'none' {
  if (flags.out !== undefined) return flags.out === '-' ? 'stdout' : 'file';
  if (flags.json === true) return 'stdout';
  return flags.html === undefined && !io.stdoutIsTTY ? 'stdout' : 'none';
}

export function sweepMergeCommand(files: string[], flags: SweepMergeFlags, io: CliIO): number {
  const toFile = flags.out !== undefined && flags.out !== '-';
  const out = toFile ? outFileFlag('--out', flags.out, io.cwd) : undefined;
  if (out === undefined) {
    usage(() => mergeShards(files, io.cwd, (text) => io.stdout(text)));
    return EXIT_OK;
  }
  const sink = writingTo(`--out ${flags.out}`, () => fileSink(out));
  try {
    const { runs } = usage(() => mergeShards(files, io.cwd, (text) => sink.write(text)));
    sink.commit();
    io.stderr(`wrote ${flags.out}: ${runs} lines from ${files.length} file${files.length === 1 ? '' : 's'}\n`);
  } catch (error) {
    sink.discard();
    throw error;
  }
  return EXIT_OK;
}

/** `edits`: a --switch whose value is refused is named as typed. */
function usage<T>(f: () => T, edits: readonly Edit[] = []): T {
  try {
    return f();
  } catch (error) {
    if (error instanceof SweepInputError) throw new UsageError(blameEdits(error.message, edits));
    throw error;
  }
}

function runFailureUsage(plan: SweepPlan, error: RunFailure): Error {
  const task = plan.taskAt(error.index);
  const where = `run ${error.index} (${task.mode}, seed ${task.seed}${Object.keys(task.vary).length ? `, ${JSON.stringify(task.vary)}` : ''})`;
  if (error.kind === 'internal') return new Error(`${where}: ${error.message}`);
  return new UsageError(`${where}: ${error.kind === 'limit' ? 'limit: ' : ''}${error.message}`);
}

function title(plan: SweepPlan): string {
  const shard = plan.shard
    ? ` · shard ${plan.shard.i}/${plan.shard.n} (${plan.shardRuns} of ${plan.runs} runs)`
    : ` · ${plan.runs} runs`;
  return `sweep ${plan.scenario.name} · ${plan.spec.modes.join(', ')} · seeds ${describeSeeds(plan.spec.seeds)} · ${formatDuration(plan.durationUs ?? plan.scenario.durationUs)}${shard}`;
}

function pageInfo(plan: SweepPlan): { title: string; notes: string[] } {
  const notes = [
    `grid ${plan.grid}: modes ${plan.spec.modes.join(', ')}; seeds ${describeSeeds(plan.spec.seeds)}; ${formatDuration(plan.durationUs ?? plan.scenario.durationUs)} simulated per run`,
    ...plan.spec.varies.map((v) => `--vary ${v.path}: ${v.values.map((x) => x.text).join(', ')}`),
    ...plan.sets.map((s) => `--set ${s}`),
  ];
  if (plan.shard) notes.push(`shard ${plan.shard.i}/${plan.shard.n}: ${plan.shardRuns} of ${plan.runs} runs`);
  return { title: title(plan), notes };
}

/** runs done/total, failures so far, ETA: on a terminal's stderr only, never under CI. The wall clock is read here, in the CLI. */
function progressLine(
  io: CliIO,
  plan: SweepPlan,
): { update: (done: number, total: number, failed: number) => void; done: () => void } | null {
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false';
  if (ci || !io.stderrIsTTY) return null;
  const start = performance.now();
  let shown = false;
  const width = 24;
  return {
    update: (done, total, failed) => {
      const elapsedS = msToSeconds(performance.now() - start);
      const fraction = total === 0 ? 1 : done / total;
      const eta = done > 0 ? (elapsedS * (total - done)) / done : 0;
      const filled = Math.round(fraction * width);
      shown = true;
      io.stderr(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] sweep ${plan.scenario.name} ${done}/${total} runs, ${failed} failed, ETA ${eta.toFixed(0)}s   `,
      );
    },
    done: () => {
      if (shown) io.stderr('\r\x1b[2K');
    },
  };
}
