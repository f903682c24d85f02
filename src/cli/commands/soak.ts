// `bcsim soak --server HOST:PORT --out DIR`: N clients of a scenario play
// against a real server for --duration, measured minute by minute from the
// wire (src/live/soak); then bcsim's stock and fixed models of the same
// scenario and seed run for as long, and DIR gets the report set. Ctrl-C or
// the end of --duration writes what was measured; a second Ctrl-C skips the
// clients' goodbye.
import { resolve } from 'node:path';
import { micros, usToSeconds } from '../../core/engine/index.js';
import { terminalStyle, outDirProblem } from '../../core/output/index.js';
import { modeLabel, switchesFor } from '../../model/session/index.js';
import {
  SOAK_FILES,
  Soak,
  formatHostPort,
  isLoopback,
  modelColumns,
  soakPlan,
  renderSoak,
  soakSummaryJson,
  writeSoakReport,
} from '../../live/index.js';
import type { SoakReport, SoakStatus } from '../../live/index.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import type { CliIO } from '../io.js';
import { bindAll, bindHostPortFlag, clientsFlag, hostPortFlag, loopbackBind } from '../live-flags.js';
import { manifestFlag, manifestNote, withManifest } from '../manifest-flag.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { loadForCli } from '../scenario-ref.js';
import { modeSpec, switchSets } from '../switch-flags.js';

export interface SoakFlags {
  server?: string;
  bind?: string;
  scenario?: string;
  clients?: string;
  duration?: string;
  loss?: string;
  manifest?: string;
  mode?: string;
  seed?: string;
  set?: string[];
  switch?: string[];
  /** The report folder; `--out-dir` on the command line, `--out` its old spelling. */
  out?: string;
  outDir?: string;
  rejoin?: boolean;
  json?: boolean;
}

/** --rejoin: how long a dropped player takes to join again. */
const REJOIN_AFTER_US = micros(5_000_000);

/** The scenario a soak plays by default: the measured 34-minute 3-player session. */
export const DEFAULT_SOAK_SCENARIO = 'valentines';

export async function soakCommand(flags: SoakFlags, io: CliIO): Promise<number> {
  // Every flag is checked before anything starts.
  if (flags.server === undefined)
    throw new UsageError('--server: the server to soak is required (e.g. --server 127.0.0.1:22101)');
  const server = hostPortFlag(flags.server, '--server');
  if (flags.out === undefined)
    throw new UsageError('--out-dir DIR is required: the folder the report set is written to');
  const outDir = resolve(io.cwd, flags.out);
  const problem = writingTo(`--out-dir ${flags.out}`, () => outDirProblem(flags.out as string, SOAK_FILES, io.cwd));
  if (problem !== undefined) throw new UsageError(`--out-dir ${flags.out}: ${problem}`);
  const loss = probabilityFlag('--loss', flags.loss);
  const mode = modeSpec(flags.mode);
  const manifest = manifestFlag(flags.manifest, io.cwd);
  const clientsGiven = flags.clients === undefined ? null : clientsFlag(flags.clients);
  const sets = [...(flags.set ?? []), ...mode.sets, ...switchSets(flags.switch)];
  // Without --clients, the scenario's own count.
  const loaded = withManifest(
    loadForCli(
      flags.scenario ?? DEFAULT_SOAK_SCENARIO,
      clientsGiven === null ? sets : [...sets, `clients=${clientsGiven}`],
      io,
      loss,
    ),
    manifest,
  );
  const clients = loaded.clients;
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'wall' }) ?? loaded.durationUs;
  // A plan shorter than the soak repeats its in-game phases (soak-plan.ts).
  const { scenario, repeated } = soakPlan(loaded, durationUs);
  const seed = seedFlag(flags.seed) ?? scenario.seed;
  const preset = mode.preset ?? scenario.preset;
  const bind =
    flags.bind === undefined ? loopbackBind(server, '--server', flags.server, '') : bindHostPortFlag(flags.bind);
  if (!isLoopback(server.host))
    io.stderr(`bcsim: warning: ${flags.server} is not loopback; bcsim's live mode is meant for a test machine\n`);

  const sockets = await bindAll(bind, clients, '--bind');
  const onTerminal = io.stderrIsTTY;
  const soak = new Soak({
    scenario,
    switches: switchesFor(scenario, preset),
    seed,
    clients,
    durationUs,
    loss: loss ?? null,
    sockets,
    server,
    rejoinAfterUs: flags.rejoin === true ? REJOIN_AFTER_US : null,
    // On a terminal every 10 s over one line; into a file or pipe one line a minute.
    progressEveryUs: micros(onTerminal ? 10_000_000 : 60_000_000),
    progress: (s) => io.stderr(onTerminal ? `\r${progressLine(s)}\x1b[K` : `${progressLine(s)}\n`),
  });
  const stopOnSignal = io.onInterrupt?.(() => soak.stop('signal'));
  io.stderr(
    `bcsim soak: ${clients} client${clients === 1 ? '' : 's'} of ${scenario.name} (mode ${preset}, seed ${seed}) -> ${flags.server}, ${usToSeconds(durationUs)} s; report in ${flags.out}\n`,
  );
  if (repeated !== null)
    io.stderr(
      `bcsim soak: the phases of ${scenario.name} end before ${usToSeconds(durationUs)} s: after the join, ${repeated.join(', ')} repeat until then\n`,
    );
  if (manifest !== null)
    io.stderr(`bcsim soak: ${manifestNote(manifest, (many) => `${many ? 'use' : 'uses'} bcsim's stand-in hashes`)}\n`);
  let measured: Awaited<Soak['done']>;
  try {
    soak.start();
    measured = await soak.done;
  } finally {
    stopOnSignal?.();
    if (onTerminal) io.stderr('\r\x1b[K');
    for (const s of sockets) s.close();
  }
  if (soak.live.clock.failure !== null) throw soak.live.clock.failure;
  io.stderr(
    `bcsim soak: ${measured.cutShort ? `cut short (${measured.stopReason})` : 'done'} after ${usToSeconds(soak.live.clock.now).toFixed(1)} s; running the stock and fixed models for as long\n`,
  );

  const [stock, fixed] = modelColumns(scenario, seed, measured.endS);
  const report: SoakReport = {
    server: formatHostPort({ address: server.host, port: server.port }),
    scenario: scenario.name,
    seed,
    clients,
    clientMode: modeLabel(preset, scenario.switchOverrides),
    repeated,
    loss: loss ?? null,
    requestedS: usToSeconds(durationUs),
    measured,
    columns: [
      { id: 'server', label: 'your server (measured)', rows: measured.rows, endS: measured.endS, traceHash: null },
      stock,
      fixed,
    ],
  };
  writingTo(`--out-dir ${flags.out}`, () => writeSoakReport(outDir, report));
  if (flags.json) io.stdout(soakSummaryJson(report));
  else io.stdout(`${renderSoak(report, terminalStyle(io.stdoutIsTTY, io.env))}\nreport: ${flags.out}/report.html\n`);
  // Nothing from the server at all: the soak measured nothing, which is never a success.
  return measured.wire.received === 0 ? EXIT_FAILED : EXIT_OK;
}

function progressLine(s: SoakStatus): string {
  const h = Math.floor(s.elapsedS / 3600);
  const m = Math.floor((s.elapsedS % 3600) / 60);
  const sec = Math.floor(s.elapsedS % 60);
  const clock = `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
  const outbox =
    s.outbox === null
      ? 'server outbox: not yet known'
      : `server outbox ${s.outbox}${s.deadZone === null ? '' : ` (dead zone ${s.deadZone})`}, ${s.behaviour}`;
  return `soak ${clock} · datagrams in ${s.datagramsIn} out ${s.datagramsOut} · ${outbox} · in game ${s.inGame}/${s.clients}`;
}
