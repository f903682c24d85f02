// `bcsim reproduce fragment-ack | ack-outbox | rtype`: the model against what was observed.
import { usToMs } from '../../core/engine/index.js';
import {
  reproduceFragmentAck,
  STOCK_CAUSE,
  reproduceAckOutbox,
  reproduceRtype,
  scenarioSource,
  STOCK_READING,
} from '../../analysis/reproduce/index.js';
import { parseScenario } from '../../model/scenario/index.js';
import {
  renderAckOutboxReproduction,
  renderFragmentAckReproduction,
  renderRtypeReproduction,
} from '../../analysis/report/index.js';
import { terminalStyle } from '../../core/output/index.js';
import type { CliIO } from '../io.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from '../io.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { loadForCli } from '../scenario-ref.js';

export interface ReproduceFlags {
  json?: boolean;
  wide?: boolean;
  seed?: string;
  loss?: string;
  duration?: string;
}

export const DEFAULT_REPRODUCE_LOSS = 0.2;

export function reproduceCommand(target: string, flags: ReproduceFlags, io: CliIO): number {
  if (flags.wide && target !== 'fragment-ack') throw new UsageError('--wide: only with reproduce fragment-ack');
  if (target === 'rtype') return rtype(flags, io);
  if (flags.duration !== undefined) throw new UsageError('--duration: only with reproduce rtype');
  if (target === 'fragment-ack') return fragmentAck(flags, io);
  if (target === 'ack-outbox') return ackOutbox(flags, io);
  throw new UsageError(`reproduce: unknown target "${target}" (expected fragment-ack, ack-outbox or rtype)`);
}

/** The shortest --duration the R-Type table takes: the outage workload starts at a third of the run. */
export const MIN_RTYPE_REPRODUCE_US = 10_000_000;

function rtype(flags: ReproduceFlags, io: CliIO): number {
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'simulated' });
  if (durationUs !== undefined && durationUs < MIN_RTYPE_REPRODUCE_US)
    throw new UsageError(`--duration: expected at least 10s for reproduce rtype, got "${flags.duration}"`);
  const loss = probabilityFlag('--loss', flags.loss) ?? DEFAULT_REPRODUCE_LOSS;
  if (loss > 0.9)
    throw new UsageError(`--loss: expected at most 0.9 for reproduce rtype, got ${JSON.stringify(flags.loss)}`);
  const result = reproduceRtype({
    seed: seedFlag(flags.seed),
    durationMs: durationUs === undefined ? undefined : usToMs(durationUs),
    loss,
  });
  if (flags.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout(renderRtypeReproduction(result, terminalStyle(io.stdoutIsTTY, io.env)));
  // A regression guard: the baselines and every defect must keep doing what the model claims.
  return result.reproduces ? EXIT_OK : EXIT_FAILED;
}

function fragmentAck(flags: ReproduceFlags, io: CliIO): number {
  const loss = probabilityFlag('--loss', flags.loss) ?? DEFAULT_REPRODUCE_LOSS;
  const clean = loadForCli('fragment-ack-bug', [], io);
  const lossy = loadForCli('fragment-ack-bug', [`link.both.loss=${loss}`], io);
  const result = reproduceFragmentAck(clean, lossy, loss, seedFlag(flags.seed));
  if (flags.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout(renderFragmentAckReproduction(result, terminalStyle(io.stdoutIsTTY, io.env), { wide: flags.wide }));
  // A regression guard: the stock cause must stay the reading ranked first.
  return result.best.includes(STOCK_CAUSE) ? EXIT_OK : EXIT_FAILED;
}

function ackOutbox(flags: ReproduceFlags, io: CliIO): number {
  const source = scenarioSource(
    (name, sets) => loadForCli(name, sets, io),
    (json, sets) => parseScenario(JSON.stringify(json), 'reproduce:ack-outbox', sets),
  );
  const result = reproduceAckOutbox(source, {
    seed: seedFlag(flags.seed),
    onProgress: stepProgress(io, 'reproduce ack-outbox'),
  });
  if (flags.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else io.stdout(renderAckOutboxReproduction(result, terminalStyle(io.stdoutIsTTY, io.env)));
  // A regression guard: the reading the stock preset runs must stay the one ranked first.
  return result.best.readings[0] === STOCK_READING ? EXIT_OK : EXIT_FAILED;
}

/**
 * Progress of a long reproduction on stderr, also when it is not a terminal (then one line per
 * reading and per swept rate, not per run): a terminal gets one line, rewritten, and cleared at the end.
 */
function stepProgress(io: CliIO, what: string): (step: string, done: number, total: number) => void {
  let lastGroup = '';
  return (step, done, total) => {
    if (io.stderrIsTTY) {
      io.stderr(done === total ? '\r\x1b[2K' : `\r${what}: ${done}/${total} runs, ${step}\x1b[K`);
      return;
    }
    const group = step.replace(/, seed \d+$/, '');
    if (group === lastGroup) return;
    lastGroup = group;
    io.stderr(`${what}: ${done}/${total} runs, ${group}\n`);
  };
}
