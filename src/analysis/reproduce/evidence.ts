// The experiments behind `reproduce ack-outbox`: five runs per
// reading, each measured against the observations of docs/sources.md (criteria.ts).
// Every criterion returns the measured value, what was observed, and whether they match.
import { usToSeconds } from '../../core/engine/index.js';
import type { PeerView } from '../../model/session/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { fanOut, runScenario } from '../../model/session/index.js';
import { TraceCollector } from '../../model/trace/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { Role } from '../../model/transport/index.js';
import { CRITERIA, cell } from './criteria.js';
import type { Cells } from './criteria.js';
import { combatRun } from './evidence-combat.js';
import { COMBAT_DISCONNECT_FLOW, combatDisconnectRun } from './evidence-combat-disconnect.js';
import { flowRun, MEASURED_FLOW } from './evidence-flow.js';
import { gapText, joinTimes, judgeTimeline } from './join-timeline.js';
import type { TimelineVerdict } from './join-timeline.js';
import type { Reading, RunWith } from './readings.js';
import { measureSignature } from './signature.js';
import { connectAckFact, joinCapturedFact, keepaliveFact, round2Fact, wireRecorder } from './wire-facts.js';

/** Loads a built-in with --set edits, or parses an inline scenario (both validated like user input). */
export interface ScenarioSource {
  builtin(name: string, sets: readonly string[]): Scenario;
  inline(json: object, sets: readonly string[]): Scenario;
}

/**
 * The loopback experiments' first phase is their join, with update periods of its own (the built-in
 * loopback join runs at 1 ms: docs/sources.md 33); a reading's periods hold for the whole run, so they
 * are set there too.
 */
const LOOPBACK_JOIN = 'traffic.phases[0]';

/** The update periods a reading sets on loopback, per role: its transport's, and its loopback client's. */
function loopbackPeriods(reading: Reading): Partial<Record<Role, number>> {
  const periods = { ...(reading.transport.updatePeriodMs as Partial<Record<Role, number>> | undefined) };
  if (reading.loopbackClientMs !== null) periods.client = reading.loopbackClientMs;
  return periods;
}

/**
 * The scenario edits a reading makes in an experiment: transport and traffic fields, the update
 * periods; in valentines also its session traffic (the ship deaths only valentines has).
 */
function readingSets(reading: Reading, experiment: 'loopback' | 'session' | 'valentines'): string[] {
  const sets = [
    ...Object.entries(reading.transport).map(([key, value]) => `transport.${key}=${JSON.stringify(value)}`),
    ...Object.entries(reading.traffic).map(([key, value]) => `traffic.${key}=${JSON.stringify(value)}`),
  ];
  if (experiment === 'loopback') {
    for (const [role, ms] of Object.entries(loopbackPeriods(reading)))
      sets.push(`transport.updatePeriodMs.${role}=${ms}`, `${LOOPBACK_JOIN}.updatePeriodMs.${role}=${ms}`);
    return sets;
  }
  if (reading.sessionClientMs !== null) sets.push(`transport.updatePeriodMs.client=${reading.sessionClientMs}`);
  if (experiment === 'valentines')
    for (const [key, value] of Object.entries(reading.sessionTraffic))
      sets.push(`traffic.${key}=${JSON.stringify(value)}`);
  return sets;
}

/** Runs the five experiments for one reading and measures every criterion. */
export function measureReading(reading: Reading, source: ScenarioSource, seed: number): Cells {
  const loopback = readingSets(reading, 'loopback');
  const session = readingSets(reading, 'session');
  const valentines = readingSets(reading, 'valentines');
  const options: RunWith = { preset: 'stock', switches: reading.switches, seed };
  const cells: Cells = {
    ...joinRun(source.builtin('fragment-ack-bug', loopback), options),
    ...flowRun(source.inline(MEASURED_FLOW, loopback), options),
    ...combatDisconnectRun(source.inline(COMBAT_DISCONNECT_FLOW, loopback), options),
    ...combatRun(source.builtin('valentines', valentines), options),
    ...quietLobbyRun(source.inline(QUIET_LOBBY, session), options),
  };
  // In the order of CRITERIA, for tables and JSON alike.
  return Object.fromEntries(CRITERIA.map((c) => [c.key, cells[c.key]])) as Cells;
}

type JoinKeys =
  | 'joinPlateau'
  | 'joinWireCost'
  | 'emptyQueueShare'
  | 'keepaliveForm'
  | 'joinCaptured'
  | 'connectAck'
  | 'round2Datagram'
  | 'fragmentRounds'
  | 'fragmentsWholeSession'
  | TimelineKeys;

/** The loopback join and its idle lobby (the built-in fragment-ack-bug), 120 s. */
function joinRun(scenario: Scenario, options: RunWith): Pick<Cells, JoinKeys> {
  const sizes = new Map<string, number>();
  const at91: Record<Role, [number, number]> = { server: [0, 0], client: [0, 0] };
  const trace = new TraceCollector();
  const wire = wireRecorder();
  const sampler = {
    sample(timeUs: number, peers: Readonly<Record<Role, PeerView>>) {
      for (const role of ['server', 'client'] as const) {
        sizes.set(`${role}@${usToSeconds(timeUs)}`, peers[role].gauges().ackOutbox);
        if (timeUs === 91e6) at91[role] = [peers[role].counters.acksOnEmptyQueue, peers[role].counters.acksReceived];
      }
    },
  };
  const { summary } = runScenario(scenario, { ...options, observer: fanOut(trace, wire.observer, sampler) });
  const endS = summary.simulatedSeconds;
  const size = (role: Role, s: number) => sizes.get(`${role}@${s}`) ?? 0;
  const server = [0, 3, 6, 9].map((s) => size('server', s));
  const client = [2, 5].map((s) => size('client', s));
  // The instrumented session's join took ~9 s, the model's ~1 s: the plateaus are compared.
  const plateauOk = Math.abs(server[3] - 11) <= 2 && Math.abs(client[1] - 13) <= 2;
  const pct = ([empty, all]: [number, number]) => (all === 0 ? 0 : Math.round((100 * empty) / all));
  const total = pct([at91.server[0] + at91.client[0], at91.server[1] + at91.client[1]]);
  const signature = measureSignature(trace.events, endS, Number.POSITIVE_INFINITY);
  const rounds =
    signature.allFragmentsTogether.pass &&
    signature.periodAbout2s.pass &&
    roundCount(signature.continuesWholeRun.measured) >= 10;
  // The other write-up's wire cost at t+5 s (docs/sources.md 25): the client's fullest datagram of the first 10 s.
  const early = wire.sent.filter((d) => d.from === 'client' && d.t <= 10);
  const ackBytes = Math.max(
    0,
    ...early.map((d) => d.messages.filter((m) => m.type === 0x01).reduce((sum, m) => sum + m.size, 0)),
  );
  const keepalive = keepaliveFact(wire.sent);
  const connect = connectAckFact(wire.sent);
  const captured = joinCapturedFact(wire.sent);
  const round2 = round2Fact(wire.sent);
  return {
    ...timelineCells(judgeTimeline(joinTimes(wire.sent))),
    joinPlateau: cell('joinPlateau', `S ${server.join('→')} · C ${client.join('→')}`, plateauOk),
    joinWireCost: cell(
      'joinWireCost',
      `C ${client[1]} at t+5 s, ${ackBytes} B of ACKs at most`,
      Math.abs(client[1] - 38) <= 5 && ackBytes >= 150,
    ),
    emptyQueueShare: cell(
      'emptyQueueShare',
      `${total}% (S ${pct(at91.server)}%, C ${pct(at91.client)}%)`,
      Math.abs(total - 64) <= 10,
    ),
    keepaliveForm: cell('keepaliveForm', keepalive.value, keepalive.matches),
    joinCaptured: cell('joinCaptured', captured.value, captured.matches),
    connectAck: cell('connectAck', connect.value, connect.matches),
    round2Datagram: cell('round2Datagram', round2.value, round2.matches),
    fragmentRounds: cell(
      'fragmentRounds',
      `${signature.continuesWholeRun.measured.split(',')[0]}, ${signature.periodAbout2s.measured}`,
      rounds,
    ),
    fragmentsWholeSession: cell(
      'fragmentsWholeSession',
      `${signature.continuesWholeRun.measured} (run ${endS} s)`,
      signature.continuesWholeRun.pass,
    ),
  };
}

type TimelineKeys = 'joinTimelineTotal' | 'joinQuickSteps' | 'joinClientHashing' | 'joinRound3Gap' | 'joinSettingsGap';

/** The quick steps: every step of the timeline the update loop alone times (under 10 ms measured). */
const QUICK_STEP_MAX_MS = 10;

/** docs/sources.md 33: the join's timeline, step by step, as five criteria. */
function timelineCells(v: TimelineVerdict): Pick<Cells, TimelineKeys> {
  const step = (event: string) => v.steps.find((s) => s.event === event) as TimelineVerdict['steps'][number];
  const quick = v.steps.filter((s) => s.measuredGapMs < QUICK_STEP_MAX_MS);
  const hashing = [step('response2'), step('responseFF')];
  const total = v.totalMs === null ? 'no Settings' : `${Math.round(v.totalMs).toLocaleString('en-US')} ms`;
  return {
    joinTimelineTotal: cell('joinTimelineTotal', total, v.totalOk),
    joinQuickSteps: cell(
      'joinQuickSteps',
      quick.map(gapText).join(' '),
      quick.every((s) => s.ok),
    ),
    joinClientHashing: cell(
      'joinClientHashing',
      `r2 ${gapText(hashing[0])}, r0xFF ${gapText(hashing[1])}`,
      hashing.every((s) => s.ok),
    ),
    joinRound3Gap: cell('joinRound3Gap', gapText(step('request3')), step('request3').ok),
    joinSettingsGap: cell('joinSettingsGap', gapText(step('settings')), step('settings').ok),
  };
}

function roundCount(measured: string): number {
  return Number.parseInt(measured, 10) || 0;
}

/** 2 min of combat, then a quiet phase: does the dead zone stay where the combat left it? */
const QUIET_LOBBY = {
  name: 'combat, then quiet',
  duration: '4m',
  traffic: { phases: ['join', { kind: 'combat', duration: '2m', reliablePerSecond: 'measured' }, { kind: 'quiet' }] },
};

function quietLobbyRun(scenario: Scenario, options: RunWith): Pick<Cells, 'passOneOpensGate' | 'quietLobbyPersists'> {
  const deadZone = new Map<number, [number, number]>();
  // Datagrams of ACKs alone, fresh (pass 1) and stale (pass 2) together: pass 1 opened the gate.
  let ackOnly = 0;
  const { session, summary } = runScenario(scenario, {
    ...options,
    observer: {
      sample(timeUs, peers) {
        deadZone.set(Math.round(usToSeconds(timeUs)), [
          peers.server.gauges().ackOutboxDeadZone,
          peers.client.gauges().ackOutboxDeadZone,
        ]);
      },
      datagramSent(_timeUs, _from, _bytes, _uids, notes) {
        if (
          notes.length > 1 &&
          notes.every((n) => n === SendNote.Ack || n === SendNote.StaleAck) &&
          notes.includes(SendNote.Ack) &&
          notes.includes(SendNote.StaleAck)
        )
          ackOnly++;
      },
    },
  });
  const quietS = Math.ceil(usToSeconds(session.traffic.phaseLog.find((p) => p.kind === 'quiet')?.startUs ?? 0));
  // 5 s into the quiet the last combat ACKs have had their three pass-1 sends.
  const early = deadZone.get(quietS + 5) ?? [0, 0];
  const end = deadZone.get(summary.simulatedSeconds) ?? [0, 0];
  // "The deadlock persists and entries accumulate" (ack-outbox-deadlock.md §2): none drains.
  const persists = early[0] > 0 && early[1] > 0 && end[0] >= early[0] && end[1] >= early[1];
  return {
    passOneOpensGate: cell('passOneOpensGate', `${ackOnly} such datagram${ackOnly === 1 ? '' : 's'}`, ackOnly > 0),
    quietLobbyPersists: cell('quietLobbyPersists', `S ${early[0]}→${end[0]} · C ${early[1]}→${end[1]}`, persists),
  };
}
