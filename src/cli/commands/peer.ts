// `bcsim peer client --connect HOST:PORT` and `bcsim peer server --listen HOST:PORT`:
// one end of the model against a real counterpart,
// then the conformance rules on what the counterpart sent. Each rule passes,
// fails or is not exercised (it checked nothing); the run fails (exit 1) when a
// rule failed or the join did not complete, and a rule not exercised fails it
// only with --require-exercised.
import { usToSeconds } from '../../core/engine/index.js';
import { resolve } from 'node:path';
import {
  formatHostPort,
  isLoopback,
  LivePeer,
  summarizeLive,
  judgedUntilUs,
  renderLiveSummary,
  joinResult,
  clientVerdicts,
  renderClientVerdicts,
  noAnswerSentence,
  checksumRefusal,
  ConformanceRulesError,
  loadRulesFile,
  evaluateConformance,
  DEFAULT_RULES,
  renderConformance,
  conformanceJunitXml,
  countVerdicts,
  requireExercised,
  CHECKSUM_CHECKS,
  BYTES_PER_MIB,
  MAX_WIRE_LOG_MIB,
} from '../../live/index.js';
import type { ChecksumChecks } from '../../live/index.js';
import type {
  ChecksumRefusal,
  ClientVerdict,
  HostPort,
  LiveSummary,
  ConformanceCounts,
  ConformanceResult,
} from '../../live/index.js';
import { writeFilesTogether } from '../../core/output/index.js';
import { modeLabel, switchesFor } from '../../model/session/index.js';
import type { Role } from '../../model/transport/index.js';
import { EXIT_FAILED, EXIT_OK, UsageError, writingTo } from '../io.js';
import type { CliIO } from '../io.js';
import { manifestFlag, manifestNote, withManifest } from '../manifest-flag.js';
import type { ManifestFlag } from '../manifest-flag.js';
import { durationFlag, seedFlag } from '../options.js';
import { bindAll, bindHostPortFlag, clientsFlag, hostPortFlag, loopbackBind } from '../live-flags.js';
import { loadForCli } from '../scenario-ref.js';
import { outFileFlag } from '../out-file.js';
import { modeSpec, switchSets } from '../switch-flags.js';

export interface PeerFlags {
  connect?: string;
  listen?: string;
  bind?: string;
  scenario?: string;
  mode?: string;
  seed?: string;
  duration?: string;
  clients?: string;
  set?: string[];
  switch?: string[];
  expect?: string;
  requireExercised?: boolean;
  checksums?: string;
  manifest?: string;
  junit?: string;
  out?: string;
  json?: boolean;
  wireLogMb?: string;
}

export async function peerCommand(side: string, flags: PeerFlags, io: CliIO): Promise<number> {
  if (side !== 'client' && side !== 'server')
    throw new UsageError(`peer: the side is "client" or "server", not "${side}"`);
  const role: Role = side;
  const addresses = peerAddresses(role, flags);
  const clients = clientsFlag(flags.clients);
  const wireLogBytes = wireLogFlag(flags.wireLogMb);
  const mode = modeSpec(flags.mode);
  const manifest = manifestFlag(flags.manifest, io.cwd);
  const scenario = withManifest(
    loadForCli(
      flags.scenario ?? 'live',
      [...(flags.set ?? []), ...mode.sets, ...switchSets(flags.switch), `clients=${clients}`],
      io,
    ),
    manifest,
  );
  const durationUs = durationFlag('--duration', flags.duration, { clock: 'wall' }) ?? scenario.durationUs;
  const seed = seedFlag(flags.seed) ?? scenario.seed;
  const preset = mode.preset ?? scenario.preset;
  const rules = flags.expect === undefined ? DEFAULT_RULES : rulesFile(resolve(io.cwd, flags.expect));
  const outFile = outFileFlag('--out', flags.out, io.cwd);
  const junitFile = outFileFlag('--junit', flags.junit, io.cwd);
  for (const a of [addresses.bind, addresses.remote]) {
    if (a !== null && !isLoopback(a.host))
      io.stderr(
        `bcsim: warning: ${formatHostPort({ address: a.host, port: a.port })} is not loopback; bcsim's live mode is meant for a test machine\n`,
      );
  }

  const sockets = await bindAll(
    addresses.bind,
    role === 'server' ? 1 : clients,
    role === 'server' ? '--listen' : '--bind',
  );
  const statusShown = io.stderrIsTTY && !flags.json;
  // At once, one line (over the status line on a terminal).
  const warn = (line: string) => io.stderr(`${statusShown ? '\r\x1b[K' : ''}bcsim peer ${role}: ${line}\n`);
  const checksums = checksumsFlag(role, flags.checksums, manifest !== null);
  const live = new LivePeer({
    role,
    scenario,
    switches: switchesFor(scenario, preset),
    seed,
    sockets,
    remote: addresses.remote,
    clients,
    durationUs,
    warn,
    checksums,
    wireLogBytes,
    formOnlyRounds: manifest?.rounds.filter((r) => r.from === 'stand-in').map((r) => r.round) ?? [],
  });
  const stopOnSignal = io.onInterrupt?.(() => live.stop('signal'));
  const status = statusShown ? setInterval(() => io.stderr(`\r${statusLine(live)}\x1b[K`), 500) : null;
  const locals = sockets.map((s) => formatHostPort(s.address()));
  const local = locals[0];
  const many = locals.length > 1 ? `${locals.length} clients from ${locals.join(', ')}` : local;
  io.stderr(
    `bcsim peer ${role}: ${many}${addresses.remote ? ` -> ${formatHostPort({ address: addresses.remote.host, port: addresses.remote.port })}` : ', waiting for clients'}, ${scenario.name}, mode ${preset}, ${usToSeconds(durationUs)} s\n`,
  );
  if (manifest !== null) io.stderr(`bcsim peer ${role}: ${manifestLine(role, manifest, checksums)}\n`);
  try {
    live.start();
    await live.done;
  } finally {
    stopOnSignal?.();
    if (status !== null) {
      clearInterval(status);
      io.stderr('\r\x1b[K');
    }
    for (const s of sockets) s.close();
  }
  if (live.clock.failure !== null) throw live.clock.failure;

  const summary = summarizeLive(live, {
    scenario: scenario.name,
    mode: modeLabel(preset, scenario.switchOverrides),
    switches: switchesFor(scenario, preset),
    seed,
    local,
    remote:
      addresses.remote === null
        ? null
        : formatHostPort({ address: addresses.remote.host, port: addresses.remote.port }),
  });
  // A client the server refused at a checksum answer: that comes first, with the hashes it sent.
  const refusal =
    role === 'client' && clients === 1 && live.connections[0].joinedAtUs === null
      ? checksumRefusal(live.log.records, scenario.traffic.manifest, judgedUntilUs(live), manifest?.file ?? null)
      : null;
  const join = joinResult(live, refusal);
  const judged: ConformanceResult[] = [
    join,
    // A wire log cut short by its budget is judged up to where it is complete.
    ...evaluateConformance(live.log.records, rules, { endUs: judgedUntilUs(live) }),
  ];
  const results = flags.requireExercised ? requireExercised(judged) : judged;
  const counts = countVerdicts(results);
  // Several clients: each judged on its own connection as well (the results above are all of them together).
  const perClient =
    role === 'client' && clients > 1
      ? clientVerdicts(live, {
          rules,
          requireExercised: flags.requireExercised === true,
          manifest: scenario.traffic.manifest,
          manifestFile: manifest?.file ?? null,
          locals,
        })
      : null;
  const noAnswer = noAnswerSentence(summary);
  const report: LiveSummary & {
    noAnswer: string | null;
    checksumRefusal: ChecksumRefusal | null;
    manifest: Pick<ManifestFlag, 'file' | 'form' | 'rounds'> | null;
    conformanceCounts: ConformanceCounts;
    conformance: ConformanceResult[];
    clients?: ClientVerdict[];
  } = {
    ...summary,
    noAnswer,
    checksumRefusal: refusal,
    manifest: manifest === null ? null : { file: manifest.file, form: manifest.form, rounds: manifest.rounds },
    conformanceCounts: counts,
    conformance: results,
    ...(perClient === null ? {} : { clients: perClient }),
  };
  const json = `${JSON.stringify(report, null, 2)}\n`;
  // The summary and the JUnit file appear together or not at all.
  const files: Array<{ path: string; content: string }> = [];
  if (outFile !== undefined) files.push({ path: outFile, content: json });
  if (junitFile !== undefined)
    files.push({ path: junitFile, content: conformanceJunitXml(results, `bcsim peer ${role} ${scenario.name}`) });
  writingTo(
    [flags.out && `--out ${flags.out}`, flags.junit && `--junit ${flags.junit}`].filter(Boolean).join(', '),
    () => writeFilesTogether(files),
  );
  // With nothing from the counterpart, or a refused checksum answer, that comes first: it is why the rest failed.
  const first = noAnswer ?? refusal?.sentence ?? null;
  if (flags.json) {
    if (first !== null) io.stderr(`${first}\n`);
    io.stdout(json);
  } else {
    const each = perClient === null ? '' : `${renderClientVerdicts(perClient)}\n`;
    io.stdout(
      `${first === null ? '' : `${first}\n`}${renderLiveSummary(summary)}\n${renderConformance(results)}\n${each}`,
    );
  }
  return counts.failed === 0 && join.status === 'pass' ? EXIT_OK : EXIT_FAILED;
}

function peerAddresses(role: Role, flags: PeerFlags): { bind: HostPort; remote: HostPort | null } {
  if (role === 'server') {
    if (flags.connect !== undefined)
      throw new UsageError('peer server: --connect is for a client; a server takes --listen HOST:PORT');
    if (flags.listen === undefined)
      throw new UsageError('peer server: --listen HOST:PORT is required (e.g. --listen 127.0.0.1:22101)');
    return { bind: hostPortFlag(flags.listen, '--listen'), remote: null };
  }
  if (flags.listen !== undefined)
    throw new UsageError('peer client: --listen is for a server; a client takes --connect HOST:PORT');
  if (flags.connect === undefined)
    throw new UsageError('peer client: --connect HOST:PORT is required (e.g. --connect 127.0.0.1:22101)');
  const remote = hostPortFlag(flags.connect, '--connect');
  if (flags.bind !== undefined) return { bind: bindHostPortFlag(flags.bind), remote };
  return { bind: loopbackBind(remote, '--connect', flags.connect, 'peer client: '), remote };
}

/**
 * `--checksums form|hashes` (a server's check of checksum answers, checksum-check.ts). A server given
 * `--manifest` checks every hash against it unless told otherwise, as a real server with a manifest does.
 */
function checksumsFlag(role: Role, value: string | undefined, manifest: boolean): ChecksumChecks {
  if (value === undefined) return role === 'server' && manifest ? 'hashes' : 'form';
  if (role === 'client')
    throw new UsageError('peer client: --checksums is for a server (it checks the answers a client sends)');
  if (!(CHECKSUM_CHECKS as readonly string[]).includes(value))
    throw new UsageError(`--checksums: "${value}" is not one of ${CHECKSUM_CHECKS.join(', ')}`);
  return value as ChecksumChecks;
}

/** The stderr line naming the manifest file and the rounds bcsim stands in. */
function manifestLine(role: Role, manifest: ManifestFlag, checksums: ChecksumChecks): string {
  if (role === 'client') return manifestNote(manifest, (many) => `${many ? 'use' : 'uses'} bcsim's stand-in hashes`);
  return manifestNote(
    manifest,
    (many) =>
      `${many ? 'are' : 'is'} asked from bcsim's stand-in${checksums === 'hashes' ? `, ${many ? 'their answers' : 'its answer'} checked by form only` : ''}`,
    `answers checked ${checksums === 'hashes' ? 'hash by hash' : 'by form'} (--checksums ${checksums})`,
  );
}

/** `--wire-log-mb N`: the wire log's budget in MiB (wire-log.ts); undefined keeps its default. */
function wireLogFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_WIRE_LOG_MIB)
    throw new UsageError(`--wire-log-mb: expected a whole number of MiB 1..${MAX_WIRE_LOG_MIB}, got "${value}"`);
  return n * BYTES_PER_MIB;
}

function rulesFile(file: string): ReturnType<typeof loadRulesFile> {
  try {
    return loadRulesFile(file);
  } catch (error) {
    if (error instanceof ConformanceRulesError) throw new UsageError(`--expect: ${error.message}`);
    throw error;
  }
}

function statusLine(live: LivePeer): string {
  const own = live.own.stats();
  const joined = live.traffic.inGame().length;
  return `peer ${live.role} ${(usToSeconds(live.clock.now)).toFixed(1)} s · datagrams out ${live.wire.sent} in ${live.wire.received} · reliable ${own.reliableSent} sent, ${own.acknowledged} ACKed · in game ${joined}/${live.connections.length}`;
}
