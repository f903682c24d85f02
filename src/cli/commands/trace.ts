// `bcsim trace <scenario>`: the annotated wire trace of one run.
import { FilterError, matches, parseFilter } from '../../trace/filter.js';
import { eventPeer } from '../../trace/events.js';
import { TRACE_HEADER, eventToJson, formatEvent } from '../../trace/format.js';
import { traceScenario } from '../../trace/run.js';
import type { CliIO } from '../io.js';
import { EXIT_OK, UsageError } from '../io.js';
import { durationFlag, presetFlag, seedFlag } from '../options.js';
import { loadForCli } from '../scenario-ref.js';

export interface TraceFlags {
  mode?: string;
  seed?: string;
  from?: string;
  until?: string;
  peer?: string;
  filter?: string;
  json?: boolean;
  set?: string[];
}

export function traceCommand(ref: string, flags: TraceFlags, io: CliIO): number {
  if (flags.peer !== undefined && flags.peer !== 'server' && flags.peer !== 'client') {
    throw new UsageError(`--peer: expected server or client, got "${flags.peer}"`);
  }
  let filter;
  try {
    filter = flags.filter === undefined ? null : parseFilter(flags.filter);
  } catch (error) {
    if (error instanceof FilterError) throw new UsageError(`--filter: ${error.message}`);
    throw error;
  }
  const fromUs = durationFlag('--from', flags.from, true) ?? 0;
  const untilUs = durationFlag('--until', flags.until);
  if (untilUs !== undefined && untilUs < fromUs) throw new UsageError(`--until: must not be before --from`);
  const scenario = loadForCli(ref, flags.set ?? [], io);
  const { events, result } = traceScenario(scenario, { preset: presetFlag(flags.mode), seed: seedFlag(flags.seed), fromUs, untilUs });
  const selected = events.filter((e) => (flags.peer === undefined || eventPeer(e) === flags.peer) && (filter === null || matches(filter, e)));
  if (flags.json) {
    io.stdout(selected.map((e) => `${JSON.stringify(eventToJson(e))}\n`).join(''));
    return EXIT_OK;
  }
  const s = result.summary;
  io.stdout(`# ${s.scenario} · mode ${s.mode} · seed ${s.seed} · ${selected.length} of ${events.length} events · trace ${s.traceHash.slice(0, 16)}\n`);
  io.stdout(`${TRACE_HEADER}\n`);
  io.stdout(selected.map((e) => `${formatEvent(e)}\n`).join(''));
  return EXIT_OK;
}
