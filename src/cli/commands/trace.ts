// `bcsim trace <scenario>`: the annotated wire trace of one run, streamed as the
// run goes, so a long window never sits in memory. `--client K` and `--slot S`
// keep one connection of a multi-client session.
import {
  FilterError,
  matches,
  parseFilter,
  eventPeer,
  BYTES_MODES,
  eventToJson,
  formatEvent,
  traceHeader,
  clientWithSlot,
  traceScenario,
  TraceCollector,
} from '../../model/trace/index.js';
import type { TraceFilter, TraceEvent, BytesMode, TraceOptions } from '../../model/trace/index.js';
import { CaptureSet } from '../../analysis/capture/index.js';
import { fanOut } from '../../model/session/index.js';
import type { RunResult, SessionObserver } from '../../model/session/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { CliIO } from '../io.js';
import { EXIT_OK, UsageError, writingTo } from '../io.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { micros } from '../../core/engine/index.js';
import { modeSpec, switchSets } from '../switch-flags.js';
import { progressFor } from '../progress.js';
import { loadForCli } from '../scenario-ref.js';
import { captureComment } from './run.js';
import { pcapFlag } from '../pcap-flag.js';
import { phasePlanWarner } from '../warnings.js';
import { capturedRunFailed, interruptibleRuns } from '../interrupt.js';
import type { InterruptibleRuns } from '../interrupt.js';

export interface TraceFlags {
  mode?: string;
  seed?: string;
  from?: string;
  until?: string;
  duration?: string;
  loss?: string;
  peer?: string;
  client?: string;
  slot?: string;
  filter?: string;
  json?: boolean;
  bytes?: string;
  set?: string[];
  switch?: string[];
  pcap?: string;
  pcapPlaintext?: boolean;
}

/** Output is written in chunks of about this many characters. */
const FLUSH_CHARS = 64 * 1024;

/** Thrown out of the run when stdout's reader has gone: nothing more can be shown. */
class OutputClosed extends Error {
  override readonly name = 'OutputClosed';
}

export async function traceCommand(ref: string, flags: TraceFlags, io: CliIO): Promise<number> {
  if (flags.peer !== undefined && flags.peer !== 'server' && flags.peer !== 'client') {
    throw new UsageError(`--peer: expected server or client, got "${flags.peer}"`);
  }
  const pcap = pcapFlag(flags, io.cwd);
  const filter = parseFilterFlag(flags.filter);
  const bytes = bytesFlag(flags.bytes, flags.json === true);
  const fromUs = durationFlag('--from', flags.from, { allowZero: true, clock: 'simulated' }) ?? 0;
  const untilUs = durationFlag('--until', flags.until, { clock: 'simulated' });
  if (untilUs !== undefined && untilUs < fromUs) throw new UsageError(`--until: must not be before --from`);
  const mode = modeSpec(flags.mode);
  const loss = probabilityFlag('--loss', flags.loss);
  // --duration is the run's simulated time, as in `bcsim run`; --until stops the run earlier.
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'simulated' });
  const loaded = loadForCli(ref, [...(flags.set ?? []), ...mode.sets, ...switchSets(flags.switch)], io, loss);
  const scenario: Scenario = durationUs === undefined ? loaded : { ...loaded, durationUs: micros(durationUs) };
  const preset = mode.preset;
  const seed = seedFlag(flags.seed);
  const progress = progressFor(io, flags.json === true);
  const totalUs = Math.min(untilUs ?? scenario.durationUs, scenario.durationUs);
  const only = connectionFlags(flags, scenario, (slot) => {
    const client = clientWithSlot(scenario, slot, {
      preset,
      seed,
      untilUs,
      onProgress: progress ? (us) => progress.update('finding slot', us, totalUs) : undefined,
    });
    progress?.done();
    return client;
  });

  let pending = '';
  let shown = 0;
  let total = 0;
  // With --pcap the run goes on when the reader goes away, so the capture is whole; only the lines stop.
  let silent = false;
  const flush = () => {
    if (silent) return;
    io.stdout(pending);
    pending = '';
    // `bcsim trace … | head`: once the reader has gone, stop the run instead of finishing it unseen.
    if (io.stdoutClosed?.()) {
      if (pcap === undefined) throw new OutputClosed();
      silent = true;
    }
  };
  const write = (line: string) => {
    if (silent) return;
    pending += line;
    if (pending.length >= FLUSH_CHARS) flush();
  };
  if (!flags.json) {
    const clients = scenario.clients > 1 ? ` · ${scenario.clients} clients` : '';
    const slotNote = flags.slot !== undefined ? ` · slot ${Number(flags.slot)} is client ${only}` : '';
    write(
      `# ${scenario.name} · mode ${preset ?? scenario.preset} · seed ${seed ?? scenario.seed}${clients}${slotNote}\n`,
    );
    write(`${traceHeader(bytes, scenario.clients)}\n`);
  }
  const keep = (e: TraceEvent) =>
    (only === null || e.client === only) &&
    (flags.peer === undefined || eventPeer(e) === flags.peer) &&
    (filter === null || matches(filter, e));
  const captures = pcap === undefined ? null : new CaptureSet({ plaintext: flags.pcapPlaintext === true });
  try {
    const options: TraceOptions = {
      preset,
      seed,
      fromUs,
      untilUs,
      keep: false,
      onEvent: (e) => {
        total++;
        if (silent || !keep(e)) return;
        shown++;
        write(
          flags.json
            ? `${JSON.stringify(eventToJson(e, { bytes }))}\n`
            : `${formatEvent(e, { bytes, clients: scenario.clients })}\n`,
        );
      },
      onProgress: progress ? (us) => progress.update('trace', us, totalUs) : undefined,
    };
    let result: RunResult;
    if (captures === null) result = traceScenario(scenario, options).result;
    else {
      const comment = captureComment(
        'trace',
        scenario.name,
        `mode ${flags.mode ?? scenario.preset}`,
        seed ?? scenario.seed,
        totalUs,
      );
      const capture = captures.guard(() =>
        writingTo(`--pcap ${flags.pcap}`, () => captures.open(pcap as string, comment)),
      );
      const runs = interruptibleRuns(io);
      try {
        result = await traceWith(scenario, options, totalUs, capture.recorder, runs);
      } catch (error) {
        progress?.done();
        return capturedRunFailed(error, captures, `--pcap ${flags.pcap}`, io, flush);
      } finally {
        runs.stop();
      }
    }
    progress?.done();
    if (captures !== null) writingTo(`--pcap ${flags.pcap}`, () => captures.commit());
    if (!flags.json) write(`# ${shown} of ${total} events shown · trace ${result.summary.traceHash.slice(0, 16)}\n`);
    flush();
    phasePlanWarner(io)(result.summary.settings.phasePlanCut);
  } catch (error) {
    if (!(error instanceof OutputClosed)) throw error;
    // The reader closed the pipe: conventionally not a failure (`… | head` exits 0).
    progress?.done();
  }
  return EXIT_OK;
}

/**
 * traceScenario with a second observer (the capture) beside the trace's
 * collector: the same run, to the same end (`untilUs`, already clamped).
 */
function traceWith(
  scenario: Scenario,
  options: TraceOptions,
  untilUs: number,
  capture: SessionObserver,
  runs: InterruptibleRuns,
): Promise<RunResult> {
  const collector = new TraceCollector({ fromUs: options.fromUs, untilUs, onEvent: options.onEvent, keep: false });
  return runs.run(scenario, {
    preset: options.preset,
    seed: options.seed,
    onProgress: options.onProgress,
    durationUs: untilUs,
    observer: fanOut(collector, capture),
  });
}

/**
 * --bytes none|short|fit|full. Default: `fit` for text, terminal or not, so each datagram is one
 * line of at most 120 columns that says how many bytes it cut; `full` with --json, so programs get
 * every byte (`fit` is a width of text: JSON takes it as `full`).
 */
function bytesFlag(value: string | undefined, json: boolean): BytesMode {
  if (value === undefined) return json ? 'full' : 'fit';
  if (!(BYTES_MODES as readonly string[]).includes(value))
    throw new UsageError(`--bytes: expected ${BYTES_MODES.join(', ')}, got "${value}"`);
  return value as BytesMode;
}

/**
 * --client K or --slot S: the client whose connection to keep, or null for all.
 * Slots are given 2, 3, … in connect order, so S outside 2..clients+1 is refused
 * at once; otherwise `findClient` (a silent run) says which client got it, and
 * the trace then keeps that client's events, those from before it had its slot too.
 */
function connectionFlags(
  flags: TraceFlags,
  scenario: Scenario,
  findClient: (slot: number) => number | null,
): number | null {
  const clients = scenario.clients;
  if (flags.client !== undefined && flags.slot !== undefined)
    throw new UsageError(`--slot: cannot be combined with --client (each names one connection)`);
  if (flags.client !== undefined)
    return wholeFlag(
      '--client',
      flags.client,
      1,
      clients,
      `${scenario.name} has ${clients} client${clients === 1 ? '' : 's'}`,
    );
  if (flags.slot === undefined) return null;
  const slot = wholeFlag(
    '--slot',
    flags.slot,
    2,
    clients + 1,
    `the server gives ${clients} client${clients === 1 ? '' : 's'} slots from 2 in connect order`,
  );
  const client = findClient(slot);
  if (client === null)
    throw new UsageError(`--slot: no client got slot ${slot} in this run (fewer clients connected before it ended)`);
  return client;
}

function wholeFlag(flag: string, value: string, min: number, max: number, why: string): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${flag}: expected a whole number ${min}..${max} (${why}), got "${value}"`);
  }
  return Number(value);
}

function parseFilterFlag(expression: string | undefined): TraceFilter | null {
  if (expression === undefined) return null;
  try {
    return parseFilter(expression);
  } catch (error) {
    if (error instanceof FilterError) throw new UsageError(`--filter: ${error.message}`);
    throw error;
  }
}
