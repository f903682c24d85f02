// `reproduce ack-outbox`: the stock model beside the measured ACK-outbox facts
// of DECISIONS.md, and a traffic sweep that shows when the dead zone stays
// bounded and when it grows without bound.
import { TYPE_ACK, TYPE_DISCONNECT, decodeDatagram } from '../codec/index.js';
import { MetricsRecorder, seriesTrends } from '../metrics/recorder.js';
import { parseScenario } from '../scenario/load.js';
import type { Scenario, SwitchOverrides } from '../scenario/scenario.js';
import type { SessionObserver } from '../session/observer.js';
import { runScenario } from '../session/run.js';
import type { PeerTransport } from '../transport/peer.js';
import type { Role } from '../transport/roles.js';

export interface JoinSample {
  readonly peer: Role;
  readonly atSeconds: number;
  readonly observed: number;
  readonly model: number;
}

export interface QuietPattern {
  readonly label: string;
  /** Send times (s) of the client's ACK for the last reliable message before the quiet period. */
  readonly ackSendTimes: number[];
  readonly disconnectAtSeconds: number | null;
  readonly sendsBeforeQuiet: number;
  /** The ACK rode in the Disconnect datagram. */
  readonly inDisconnectDatagram: boolean;
  readonly matchesObservation: boolean;
}

export interface SweepPoint {
  readonly reliablePerSecond: number;
  readonly outboxMax: number;
  readonly outboxFinal: number;
  readonly deadZoneMax: number;
  readonly slopePerHour: number;
  readonly leak: boolean;
  readonly meanAckBytesPerDatagram: number;
  readonly dedupMaxPerSecond: number;
}

export interface AckOutboxReproduction {
  readonly join: JoinSample[];
  readonly quiet: QuietPattern[];
  readonly session34min: { observedMin: number; observedMax: number; serverMax: number; clientMax: number };
  readonly sweep: SweepPoint[];
  readonly lobby: Array<{ label: string; deadZoneAfterCombat: number; deadZoneAtEnd: number }>;
  readonly explanation: string[];
}

/** DECISIONS.md "Instrumented 91-second loopback session". */
const OBSERVED_JOIN: ReadonlyArray<[Role, number, number]> = [
  ['server', 0, 2],
  ['server', 3, 4],
  ['server', 6, 10],
  ['server', 9, 11],
  ['client', 2, 12],
  ['client', 5, 13],
];

export const SWEEP_RATES = [4.9, 30, 60, 90, 120, 150, 180];
/** Stock, but fragments are ACKed correctly: isolates the ACK-outbox from the fragment bug. */
const NO_FRAGMENT_BUG = { fragmentAckCause: 'none' } as const;
const SWEEP_MINUTES = 10;

export function reproduceAckOutbox(loadBuiltin: (name: string) => Scenario, seed = 1): AckOutboxReproduction {
  const join = joinSizes(loadBuiltin('fragment-ack-bug'), seed);
  // The fragment bug's retransmits every ~2 s also open the client's gate, so each
  // quiet-period experiment runs with it and without it (stock ACK-outbox either way).
  const shortQuiet = ['join', 'disconnect'];
  const longQuiet = ['join', { kind: 'lobby', duration: '30s' }, 'disconnect'];
  const quiet = [
    quietPattern('join, then disconnect (quiet < 5 s)', shortQuiet, seed, {}),
    quietPattern('same, without fragment retransmits', shortQuiet, seed, NO_FRAGMENT_BUG),
    quietPattern('join, 30 s lobby, disconnect', longQuiet, seed, {}),
    quietPattern('same, without fragment retransmits', longQuiet, seed, NO_FRAGMENT_BUG),
  ];
  const valentines = runScenario(loadBuiltin('valentines'), { preset: 'stock', seed }).summary;
  const sweep = SWEEP_RATES.map((rate) => sweepPoint(rate, seed));
  // Longer than the run: no keepalive, no timeout.
  const silent = { keepaliveIdleMs: 86_400_000, peerTimeoutMs: 86_400_000 };
  const lobby = [
    lobbyDrain('lobby with keepalives', {}, seed, {}),
    lobbyDrain('lobby, keepalives suppressed', silent, seed, {}),
    lobbyDrain('lobby, keepalives suppressed, no fragment retransmits', silent, seed, NO_FRAGMENT_BUG),
  ];
  const session34min = { observedMin: 20, observedMax: 33, serverMax: valentines.peers.server.ackOutbox.max, clientMax: valentines.peers.client.ackOutbox.max };
  return { join, quiet, session34min, sweep, lobby, explanation: explain(sweep, lobby, quiet) };
}

function joinSizes(scenario: Scenario, seed: number): JoinSample[] {
  const sizes = new Map<string, number>();
  const observer: SessionObserver = {
    sample(timeUs: number, peers: Readonly<Record<Role, PeerTransport>>) {
      for (const role of ['server', 'client'] as const) sizes.set(`${role}@${timeUs / 1e6}`, peers[role].ackOutbox.size);
    },
  };
  // The sampler fires each whole second; t = 0 is read before anything happens.
  runScenario(scenario, { preset: 'stock', seed, durationUs: 10e6, observer });
  return OBSERVED_JOIN.map(([peer, atSeconds, observed]) => ({ peer, atSeconds, observed, model: atSeconds === 0 ? 0 : (sizes.get(`${peer}@${atSeconds}`) ?? 0) }));
}

function quietPattern(label: string, phases: unknown[], seed: number, switches: SwitchOverrides): QuietPattern {
  const scenario = parseScenario(JSON.stringify({ name: 'quiet', duration: '60s', seed, traffic: { phases } }), 'reproduce:quiet');
  const clientSends: Array<{ t: number; acks: Array<[number, number]>; disconnect: boolean }> = [];
  let lastServerReliable: [number, number] | null = null;
  const observer: SessionObserver = {
    datagramSent(timeUs, from, bytes) {
      const d = decodeDatagram(bytes);
      if (!d.ok) return;
      const messages = d.datagram.messages;
      if (from === 'server') {
        for (const m of messages) if (m.type !== TYPE_ACK && m.reliable && m.type !== 0) lastServerReliable = [m.type < 0x32 ? 2 : 0, m.seq as number];
        return;
      }
      clientSends.push({
        t: timeUs / 1e6,
        acks: messages.filter((m) => m.type === TYPE_ACK).map((m) => [m.flags & 2, m.seq] as [number, number]),
        disconnect: messages.some((m) => m.type === TYPE_DISCONNECT),
      });
    },
  };
  runScenario(scenario, { preset: 'stock', switches, seed, observer });
  const target = lastServerReliable as [number, number] | null;
  const carrying = target === null ? [] : clientSends.filter((s) => s.acks.some(([low, seq]) => low === target[0] && seq === target[1]));
  const disconnect = clientSends.find((s) => s.disconnect) ?? null;
  const before = carrying.filter((s) => disconnect === null || s.t < disconnect.t);
  const inDisconnect = disconnect !== null && carrying.some((s) => s === disconnect);
  return {
    label,
    ackSendTimes: carrying.map((s) => s.t),
    disconnectAtSeconds: disconnect?.t ?? null,
    sendsBeforeQuiet: before.length,
    inDisconnectDatagram: inDisconnect,
    matchesObservation: before.length === 3 && inDisconnect,
  };
}

function sweepPoint(rate: number, seed: number): SweepPoint {
  const scenario = parseScenario(
    JSON.stringify({ name: `combat-${rate}`, duration: `${SWEEP_MINUTES}m`, seed, traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: rate }] } }),
    'reproduce:sweep',
  );
  const recorder = new MetricsRecorder();
  const { summary } = runScenario(scenario, { preset: 'stock', seed, observer: recorder });
  const p = summary.peers.server;
  const trend = seriesTrends(recorder.recorded()).find((t) => t.peer === 'server' && t.metric === 'ackOutbox');
  return {
    reliablePerSecond: rate,
    outboxMax: p.ackOutbox.max,
    outboxFinal: p.ackOutbox.final,
    deadZoneMax: p.ackOutboxDeadZone.max,
    slopePerHour: Math.round(trend?.trend.slopePerHour ?? 0),
    leak: trend?.trend.leak ?? false,
    meanAckBytesPerDatagram: Math.round((p.ackBytesSent / Math.max(1, p.packetsSent)) * 10) / 10,
    dedupMaxPerSecond: p.dedupComparisons.maxPerSecond,
  };
}

/** 2 min of combat at the measured rate, then 2 min of lobby: does the dead zone drain? */
function lobbyDrain(label: string, transport: object, seed: number, switches: SwitchOverrides): { label: string; deadZoneAfterCombat: number; deadZoneAtEnd: number } {
  const scenario = parseScenario(
    JSON.stringify({ name: 'lobby-drain', duration: '4m', seed, transport, traffic: { phases: ['join', { kind: 'combat', duration: '2m' }, { kind: 'lobby' }] } }),
    'reproduce:lobby',
  );
  const deadZoneBySecond: number[] = [];
  const observer: SessionObserver = {
    sample(timeUs, peers) {
      deadZoneBySecond[Math.round(timeUs / 1e6)] = peers.server.ackOutbox.deadZone;
    },
  };
  const { session } = runScenario(scenario, { preset: 'stock', switches, seed, observer });
  const lobbyStartS = Math.ceil((session.traffic.phaseLog.find((p) => p.kind === 'lobby')?.startUs ?? 0) / 1e6);
  // 5 s into the lobby the last combat ACKs have had their three pass-1 sends.
  return { label, deadZoneAfterCombat: deadZoneBySecond[lobbyStartS + 5] ?? 0, deadZoneAtEnd: session.peers.server.ackOutbox.deadZone };
}

function explain(sweep: SweepPoint[], lobby: AckOutboxReproduction['lobby'], quiet: QuietPattern[]): string[] {
  const bounded = sweep.filter((p) => !p.leak);
  const leaking = sweep.filter((p) => p.leak);
  const out: string[] = [];
  const maxBounded = bounded.length ? bounded[bounded.length - 1] : null;
  const firstLeak = leaking[0];
  const measured = sweep[0];
  out.push(
    `In combat (~98 StateUpdates/s, one datagram per 95 ms update) every new ACK entry's three pass-1 sends open the pass-2 gate, and each opening moves every due stranded entry one send closer to 9. ` +
      `So the dead zone stays bounded, at roughly the ACKs of the last few seconds: ${measured.deadZoneMax} entries at the measured ${measured.reliablePerSecond}/s` +
      (maxBounded ? `, ${maxBounded.deadZoneMax} at ${maxBounded.reliablePerSecond}/s.` : '.'),
  );
  if (firstLeak) {
    out.push(
      `From ${firstLeak.reliablePerSecond} reliable/s the 512-byte datagram is full before pass 2 runs: stranded entries stop advancing and the stock outbox grows without bound ` +
        `(${firstLeak.outboxFinal} entries after ${SWEEP_MINUTES} min, +${firstLeak.slopePerHour.toLocaleString('en-US')}/h, up to ${firstLeak.dedupMaxPerSecond.toLocaleString('en-US')} dedup comparisons/s). ` +
        `This is the regime behind ack-outbox-deadlock.md §5's projections (~600 at 30 min, ~2,400 at 2 h); the measured 4.9/s is far below it.`,
    );
  } else {
    out.push(`No swept rate up to ${sweep[sweep.length - 1].reliablePerSecond}/s made the outbox grow without bound.`);
  }
  const [withKeepalive, without, isolated] = lobby;
  const change = (l: (typeof lobby)[number]) =>
    l.deadZoneAfterCombat === l.deadZoneAtEnd ? `stayed at ${l.deadZoneAtEnd}` : `went from ${l.deadZoneAfterCombat} to ${l.deadZoneAtEnd}`;
  out.push(
    `In a quiet lobby the gate opens only when something is sent. Over 2 min after combat the server's dead zone ${change(withKeepalive)} entries with keepalives (sent after 5 s of silence); ` +
      `with keepalives suppressed it ${change(without)}, and ${change(isolated)} with the fragment bug's retransmits also switched off: ` +
      `what the gate strands stays stranded until traffic or a disconnect.`,
  );
  const reproduced = quiet.filter((q) => q.matchesObservation).map((q) => q.label);
  out.push(
    `The measured "3 sends ~0.667 s apart, then silence until the Disconnect" is reproduced by: ${reproduced.length ? reproduced.join('; ') : 'none of the variants'}. ` +
      `It needs a quiet period shorter than the 5 s keepalive idle time and no fragment retransmits on the client, whose every send opens its pass-2 gate. ` +
      `The model's resends are 0.76 s apart: the 0.667 s timer rounded up to 95 ms network updates.`,
  );
  return out;
}
