// `bcsim conform --server HOST:PORT`: the conformance campaign against a real
// server (src/live/conform), its table, JSON and JUnit.
import { isIP } from 'node:net';
import { bindHostPortFlag } from '../live-flags.js';
import { msToSeconds, usToMs } from '../../core/engine/index.js';
import {
  CASE_IDS,
  CONFORM_CASES,
  ConformSetupError,
  DEFAULT_PARALLEL_SESSIONS,
  DEFAULT_TIMINGS,
  MAX_SESSIONS,
  MIN_TIMEOUT_GRACE_MS,
  prepareConform,
  conformTimings,
  conformJunitXml,
  conformOutcome,
  isLoopback,
  parseHostPort,
  renderConformText,
  runConform,
} from '../../live/index.js';
import type { HostPort } from '../../live/index.js';
import { writeFilesTogether } from '../../core/output/index.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import type { CliIO } from '../io.js';
import { durationFlag, seedFlag } from '../options.js';
import { manifestFlag, manifestNote } from '../manifest-flag.js';
import { loadForCli } from '../scenario-ref.js';
import { outFileFlag } from '../out-file.js';
import { pcapFlag } from '../pcap-flag.js';

export interface ConformFlags {
  server?: string;
  cases?: string;
  seed?: string;
  bind?: string;
  parallel?: string;
  peerTimeout?: string;
  timeoutGrace?: string;
  wrapBudget?: string;
  scenario?: string;
  json?: boolean;
  junit?: string;
  out?: string;
  pcap?: string;
  list?: boolean;
  requireExercised?: boolean;
  manifest?: string;
}

export async function conformCommand(flags: ConformFlags, io: CliIO): Promise<number> {
  if (flags.list) {
    const width = Math.max(...CASE_IDS.map((id) => id.length));
    io.stdout(`${CONFORM_CASES.map((c) => `${c.id.padEnd(width)}  ${c.title}`).join('\n')}\n`);
    return EXIT_OK;
  }
  if (flags.server === undefined)
    throw new UsageError('conform: --server HOST:PORT is required (e.g. --server 127.0.0.1:22101)');
  const server = parseHostPort(flags.server, '--server');
  if (typeof server === 'string') throw new UsageError(server);
  const bindHost =
    flags.bind !== undefined
      ? bindFlag(flags.bind, server, flags.server)
      : isLoopback(server.host)
        ? server.family === 6
          ? '::1'
          : '127.0.0.1'
        : null;
  if (bindHost === null)
    throw new UsageError(
      `conform: --server ${flags.server} is not loopback; say which local address to use with --bind HOST`,
    );
  const caseIds = casesFlag(flags.cases);
  const seed = seedFlag(flags.seed) ?? 1;
  const parallel = parallelFlag(flags.parallel);
  const extraFlags: string[] = [];
  const peerTimeout = durationFlag('--peer-timeout', flags.peerTimeout);
  const timeoutGrace = timeoutGraceFlag(flags.timeoutGrace);
  const wrapBudget = durationFlag('--wrap-budget', flags.wrapBudget);
  if (flags.peerTimeout !== undefined) extraFlags.push('--peer-timeout', flags.peerTimeout);
  if (flags.timeoutGrace !== undefined) extraFlags.push('--timeout-grace', flags.timeoutGrace);
  if (flags.wrapBudget !== undefined) extraFlags.push('--wrap-budget', flags.wrapBudget);
  if (flags.scenario !== undefined) extraFlags.push('--scenario', flags.scenario);
  if (flags.manifest !== undefined) extraFlags.push('--manifest', flags.manifest);
  if (flags.bind !== undefined) extraFlags.push('--bind', flags.bind);
  if (flags.requireExercised) extraFlags.push('--require-exercised');
  const timings = conformTimings(
    peerTimeout === undefined ? undefined : usToMs(peerTimeout),
    wrapBudget === undefined ? undefined : usToMs(wrapBudget),
    timeoutGrace,
  );
  const scenario = loadForCli(flags.scenario ?? 'live', [], io);
  const manifest = manifestFlag(flags.manifest, io.cwd);
  const outFile = outFileFlag('--out', flags.out, io.cwd);
  const junitFile = outFileFlag('--junit', flags.junit, io.cwd);
  const pcapFile = pcapFlag({ pcap: flags.pcap }, io.cwd);
  if (pcapFile !== undefined && server.family === 6)
    throw new UsageError('--pcap: IPv4 addresses only (the capture frames are Ethernet/IPv4/UDP)');
  const options = await prepareConform({
    capture: pcapFile !== undefined,
    server,
    bindHost,
    distinctHosts: flags.bind === undefined && server.family === 4 && isLoopback(server.host),
    caseIds,
    seed,
    parallelSessions: parallel,
    manifest: manifest?.manifest ?? scenario.traffic.manifest,
    timings,
    extraFlags,
  }).catch(setupError);
  io.stderr(
    `bcsim conform: ${caseIds.length} cases against ${flags.server}, seed ${seed}, up to ${parallel} sessions at once${options.distinctHosts ? ', each from its own 127.0.0.x' : ''}\n`,
  );
  if (manifest !== null)
    io.stderr(
      `bcsim conform: ${manifestNote(manifest, (many) => `${many ? 'are' : 'is'} answered with bcsim's stand-in hashes`)}\n`,
    );
  const run = await runConform(options, {
    caseDone: (r, done, total) => io.stderr(`  [${done}/${total}] ${r.id}: ${r.status}\n`),
    caseError: (id, error) =>
      io.stderr(
        `bcsim conform: case ${id} stopped on an error of bcsim's (please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      ),
  }).catch(setupError);
  const { report, pcap } = run;
  const requireExercised = flags.requireExercised === true;
  const outcome = conformOutcome(report, requireExercised);
  const manifestUsed = manifest === null ? null : { file: manifest.file, form: manifest.form, rounds: manifest.rounds };
  const json = `${JSON.stringify({ ...report, manifest: manifestUsed, outcome }, null, 2)}\n`;
  const files: Array<{ path: string; content: string }> = [];
  if (outFile !== undefined) files.push({ path: outFile, content: json });
  if (junitFile !== undefined) files.push({ path: junitFile, content: conformJunitXml(report, requireExercised) });
  const written: Array<{ path: string; content: string | Uint8Array }> = [...files];
  if (pcapFile !== undefined && pcap !== null) written.push({ path: pcapFile, content: pcap });
  writingTo(
    [flags.out && `--out ${flags.out}`, flags.junit && `--junit ${flags.junit}`, flags.pcap && `--pcap ${flags.pcap}`]
      .filter(Boolean)
      .join(', '),
    () => writeFilesTogether(written),
  );
  if (flags.json && outcome.firstLine !== null) io.stderr(`${outcome.firstLine}\n`);
  io.stdout(flags.json ? json : renderConformText(report, outcome));
  return outcome.ok ? EXIT_OK : EXIT_FAILED;
}

function setupError(error: unknown): never {
  if (error instanceof ConformSetupError) throw new UsageError(error.message);
  throw error;
}

/**
 * `--bind HOST` (HOST:0 too: any port): where every session sends from. Each session binds
 * a port of its own, so a given port could not be kept: it is refused, never ignored.
 */
function bindFlag(text: string, server: HostPort, serverText: string): string {
  const bare = /^\[([^\]]+)\]$/.exec(text)?.[1] ?? text;
  if (!/:\d+$/.test(text) && bare !== 'localhost' && isIP(bare) === 0)
    throw new UsageError(`--bind ${text}: "${text}" is not an IP address (give a numeric address or localhost)`);
  const at = bindHostPortFlag(text);
  if (at.port !== 0)
    throw new UsageError(
      `--bind ${text}: conform takes a host without a port (each session binds a port of its own); give --bind ${at.family === 6 ? `[${at.host}]` : at.host}`,
    );
  if (at.family !== server.family)
    throw new UsageError(
      `--bind ${text}: an IPv${at.family} address cannot reach the IPv${server.family} --server ${serverText}`,
    );
  return at.host;
}

function casesFlag(value: string | undefined): string[] {
  if (value === undefined || value === 'all') return [...CASE_IDS];
  const ids = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (ids.length === 0)
    throw new UsageError('--cases: expected case names separated by commas (bcsim conform --list shows them)');
  for (const id of ids)
    if (!CASE_IDS.includes(id)) throw new UsageError(`--cases: unknown case "${id}" (one of ${CASE_IDS.join(', ')})`);
  return ids;
}

/** The longest --timeout-grace: ten minutes. */
const MAX_TIMEOUT_GRACE_MS = 600_000;

/** --timeout-grace: at least MIN_TIMEOUT_GRACE_MS (the probe's 2 s of silence and a second's slack), at most 10 minutes. */
function timeoutGraceFlag(value: string | undefined): number | undefined {
  const us = durationFlag('--timeout-grace', value);
  if (us === undefined) return undefined;
  const ms = usToMs(us);
  if (ms < MIN_TIMEOUT_GRACE_MS || ms > MAX_TIMEOUT_GRACE_MS)
    throw new UsageError(
      `--timeout-grace: expected ${msToSeconds(MIN_TIMEOUT_GRACE_MS)}s to 10m (default ${msToSeconds(DEFAULT_TIMINGS.timeoutGraceMs)}s), got "${value}"`,
    );
  return ms;
}

function parallelFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PARALLEL_SESSIONS;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_SESSIONS)
    throw new UsageError(`--parallel: expected a whole number of sessions 1..${MAX_SESSIONS}, got "${value}"`);
  return n;
}
