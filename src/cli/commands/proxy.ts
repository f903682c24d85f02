// `bcsim proxy`: the flags, checked before anything binds;
// the relay itself is src/live/proxy. Bad input is one line and exit 2.
import { usToSeconds } from '../../core/engine/index.js';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { captureTargetProblem } from '../../analysis/capture/index.js';
import { formatHostPort, isLoopback, parseHostPort, runProxy, renderSummary } from '../../live/index.js';
import type { HostPort, ProxyConfig, ProxySummary } from '../../live/index.js';
import { ScenarioError, parseScenario } from '../../model/scenario/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import type { CliIO } from '../io.js';
import { EXIT_OK, UsageError, writingTo } from '../io.js';
import { durationFlag, probabilityFlag, seedFlag } from '../options.js';
import { loadForCli } from '../scenario-ref.js';
import { systemErrorWords } from '../../core/files/index.js';

export interface ProxyFlags {
  listen?: string;
  upstream?: string;
  upstreamBind?: string;
  scenario?: string;
  set?: string[];
  loss?: string;
  seed?: string;
  duration?: string;
  pcap?: string;
  out?: string;
  json?: boolean;
}

/**
 * Without --scenario: a scenario with nothing but defaults, whose links are
 * perfect (resolve.ts fills every link field with PERFECT_LINK's values), so
 * --loss and --set link.… work exactly as with `bcsim run`.
 */
export const PERFECT_SCENARIO_JSON = JSON.stringify({
  name: 'proxy',
  description: 'bcsim proxy without --scenario: perfect links',
  duration: '1h',
});

function address(flag: string, value: string | undefined): HostPort {
  if (value === undefined) throw new UsageError(`${flag} is required (host:port, e.g. 127.0.0.1:22101)`);
  const parsed = parseHostPort(value, flag);
  if (typeof parsed === 'string') throw new UsageError(parsed);
  return parsed;
}

function fileFlag(flag: string, value: string | undefined, cwd: string): string | null {
  if (value === undefined) return null;
  const label = `${flag} ${value === '' ? "''" : value}`;
  const problem = writingTo(label, () => captureTargetProblem(value, cwd));
  if (problem !== undefined) throw new UsageError(`${label}: ${problem}`);
  return resolve(cwd, value);
}

/** Everything the flags say, checked; throws UsageError on the first problem. */
export function proxyConfig(flags: ProxyFlags, io: CliIO): ProxyConfig {
  const listen = address('--listen', flags.listen);
  const upstream = address('--upstream', flags.upstream);
  let upstreamBind: HostPort = { ...listen, port: 0 };
  if (flags.upstreamBind !== undefined) {
    // A bare address, or host:port whose port is ignored (each client gets its own port).
    const bare = isIP(flags.upstreamBind);
    const parsed = parseHostPort(
      bare === 6 ? `[${flags.upstreamBind}]:0` : bare === 4 ? `${flags.upstreamBind}:0` : flags.upstreamBind,
      '--upstream-bind',
      true,
    );
    if (typeof parsed === 'string') throw new UsageError(parsed);
    upstreamBind = { ...parsed, port: 0 };
  }
  if (upstreamBind.family !== upstream.family)
    throw new UsageError(
      `--upstream-bind: ${upstreamBind.host} cannot reach ${upstream.host} (IPv4 and IPv6 mixed); give --upstream-bind`,
    );
  const loss = probabilityFlag('--loss', flags.loss);
  const sets = flags.set ?? [];
  const scenario =
    flags.scenario === undefined ? perfectScenario(sets, loss) : loadForCli(flags.scenario, sets, io, loss);
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'wall' }) ?? null;
  const pcap = fileFlag('--pcap', flags.pcap, io.cwd);
  if (pcap !== null && (listen.family === 6 || upstream.family === 6))
    throw new UsageError('--pcap: IPv4 addresses only (the capture frames are Ethernet/IPv4/UDP)');
  const out = fileFlag('--out', flags.out, io.cwd);
  if (out !== null && out === pcap) throw new UsageError('--out and --pcap name the same file');
  return {
    listen,
    upstream,
    upstreamBind,
    scenario,
    scenarioRef: flags.scenario ?? null,
    loss: loss ?? null,
    sets,
    seed: seedFlag(flags.seed) ?? scenario.seed,
    durationUs,
    pcap,
    out,
  };
}

function perfectScenario(sets: readonly string[], loss: number | undefined): Scenario {
  try {
    return parseScenario(PERFECT_SCENARIO_JSON, 'proxy defaults', sets, loss);
  } catch (error) {
    if (error instanceof ScenarioError) throw new UsageError(error.message);
    throw error;
  }
}

/** The summary as JSON (stdout with --json, and --out). */
export function summaryJson(summary: ProxySummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}

export async function proxyCommand(flags: ProxyFlags, io: CliIO, stop?: Promise<string>): Promise<number> {
  const config = proxyConfig(flags, io);
  if (!isLoopback(config.listen.host)) {
    io.stderr(
      `bcsim: warning: --listen ${flags.listen} is not a loopback address: anyone who can reach it can send through the proxy (see docs/live.md, "Live proxy")\n`,
    );
  }
  let onSignal: (signal: string) => void = () => {};
  const signalled = new Promise<string>((resolveStop) => {
    onSignal = (signal) => resolveStop(signal);
  });
  const stopListening = io.onInterrupt?.(onSignal);
  let summary: ProxySummary;
  try {
    summary = await runProxy(config, {
      stop: stop === undefined ? signalled : Promise.race([stop, signalled]),
      status: io.stderrIsTTY ? (text) => io.stderr(text) : undefined,
      serialize: summaryJson,
      // One line once bound, so a script (or a test) knows when to start its client.
      onListening: (address) =>
        io.stderr(
          `bcsim proxy: listening on ${formatHostPort(address)}, upstream ${flags.upstream}, seed ${config.seed}${config.durationUs === null ? ', until SIGINT/SIGTERM' : `, for ${usToSeconds(config.durationUs)} s`}\n`,
        ),
    }).catch((error: unknown) => {
      // Bind refusals (address in use, not local) and unwritable files: one line.
      if (error instanceof Error && /^--(listen|upstream-bind): /.test(error.message))
        throw new UsageError(error.message);
      const words = systemErrorWords(error, true);
      if (words !== undefined && (config.pcap !== null || config.out !== null))
        throw new UsageError(`--pcap/--out: cannot write (${words})`);
      throw error;
    });
  } finally {
    stopListening?.();
  }
  io.stdout(flags.json ? summaryJson(summary) : renderSummary(summary));
  return EXIT_OK;
}
