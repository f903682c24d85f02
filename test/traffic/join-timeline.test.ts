// The stock join on loopback follows the captured timeline (docs/sources.md 33)
// step by step: each timed step within ±15 % or ±10 ms of its measured gap,
// whichever is larger, and Connect to Settings within ±10 %. The times are read
// here off the raw datagrams, independently of the criteria's reader, which is
// then checked to agree.
import { describe, expect, it } from 'vitest';
import { TYPE_CONNECT_ACK, TYPE_GAME } from '../../src/core/codec/index.js';
import type { Located } from '../../src/core/codec/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { MEASURED_JOIN_TIMELINE } from '../../src/model/traffic/index.js';
import type { JoinEvent } from '../../src/model/traffic/index.js';
import { joinTimes, judgeTimeline } from '../../src/analysis/reproduce/join-timeline.js';
import { wireRecorder } from '../../src/analysis/reproduce/wire-facts.js';
import { recordSent } from '../support/record.js';
import type { Sent } from '../support/record.js';

const FIRST_SEND = 0;

/** The first datagram from `from` whose first send `is` matches, in ms. */
function firstAt(sent: readonly Sent[], from: 'client' | 'server', is: (m: Located) => boolean): number | null {
  const d = sent.find((x) => x.from === from && x.messages.some((m, i) => x.notes[i] === FIRST_SEND && is(m)));
  return d === undefined ? null : d.timeUs / 1000;
}

const payloadStarts =
  (...head: number[]) =>
  (m: Located) =>
    m.type === TYPE_GAME && (!m.fragment || m.fragIndex === 0) && head.every((b, i) => m.payload[i] === b);

const MARK: Record<JoinEvent, ['client' | 'server', (m: Located) => boolean]> = {
  connect: ['client', (m) => m.type === TYPE_CONNECT_ACK],
  connectReply: ['server', payloadStarts(0x20, 0)],
  response0: ['client', payloadStarts(0x21, 0)],
  request1: ['server', payloadStarts(0x20, 1)],
  response1: ['client', payloadStarts(0x21, 1)],
  request2: ['server', payloadStarts(0x20, 2)],
  response2: ['client', payloadStarts(0x21, 2)],
  request3: ['server', payloadStarts(0x20, 3)],
  response3: ['client', payloadStarts(0x21, 3)],
  requestFF: ['server', payloadStarts(0x20, 0xff)],
  responseFF: ['client', payloadStarts(0x21, 0xff)],
  settings: ['server', payloadStarts(0x00)],
};

interface Step {
  event: JoinEvent;
  measuredMs: number;
  modelMs: number | null;
  toleranceMs: number;
}

function stock(sets: string[] = []): { steps: Step[]; totalMs: number | null; sent: Sent[] } {
  const { observer, sent } = recordSent();
  runScenario(loadScenario('fragment-ack-bug', { sets }), { preset: 'stock', durationUs: 5e6, observer });
  const at = Object.fromEntries(
    MEASURED_JOIN_TIMELINE.map((e) => [e.event, firstAt(sent, MARK[e.event][0], MARK[e.event][1])]),
  ) as Record<JoinEvent, number | null>;
  const steps = MEASURED_JOIN_TIMELINE.slice(1).map((e, i): Step => {
    const prev = MEASURED_JOIN_TIMELINE[i];
    const a = at[prev.event];
    const b = at[e.event];
    const measuredMs = e.atMs - prev.atMs;
    return {
      event: e.event,
      measuredMs,
      modelMs: a === null || b === null ? null : b - a,
      toleranceMs: Math.max(0.15 * measuredMs, 10),
    };
  });
  const connect = at.connect;
  const settings = at.settings;
  return { steps, totalMs: connect === null || settings === null ? null : settings - connect, sent };
}

const off = (s: Step) => s.modelMs === null || Math.abs(s.modelMs - s.measuredMs) > s.toleranceMs;
const table = (steps: Step[]) =>
  steps.map((s) => `${s.event}: model +${s.modelMs?.toFixed(1)} ms, measured +${s.measuredMs}±${s.toleranceMs}`);

describe('the stock join on loopback against the captured timeline (docs/sources.md 33)', () => {
  const run = stock();

  it('every event of the timeline happens, in its order', () => {
    expect(run.steps.map((s) => s.modelMs === null)).toEqual(run.steps.map(() => false));
    expect(run.steps.every((s) => (s.modelMs as number) > 0)).toBe(true);
  });

  it('each timed step is within ±15 % or ±10 ms of its measured gap', () => {
    expect(
      run.steps.filter(off).map((s) => s.event),
      table(run.steps).join('\n'),
    ).toEqual([]);
    // The slow steps are the ones the tolerance is a share of: they are really slow.
    const gap = (e: JoinEvent) => run.steps.find((s) => s.event === e)?.modelMs as number;
    expect(gap('response2')).toBeGreaterThan(599);
    expect(gap('request3')).toBeGreaterThan(391);
  });

  it('Connect to Settings + GameInit is 1,293 ms ±10 %', () => {
    expect(Math.abs((run.totalMs as number) - 1293)).toBeLessThanOrEqual(129.3);
  });

  it("the criteria's reader of the timeline agrees with this one", () => {
    const wire = wireRecorder();
    runScenario(loadScenario('fragment-ack-bug'), { preset: 'stock', durationUs: 5e6, observer: wire.observer });
    const verdict = judgeTimeline(joinTimes(wire.sent));
    expect(verdict.steps.map((s) => s.gapMs)).toEqual(run.steps.map((s) => s.modelMs));
    expect(verdict.steps.every((s) => s.ok)).toBe(true);
    expect(verdict.totalOk).toBe(true);
  });

  it('the check fails when the server answers rounds 2 and 0xFF in its next update, on exactly those two steps', () => {
    const loopOnly = stock(['traffic.serverChecks="none"']);
    expect(loopOnly.steps.filter(off).map((s) => s.event)).toEqual(['request3', 'settings']);
    const verdict = judgeTimeline(
      joinTimes(
        loopOnly.sent.map((d) => ({
          t: d.timeUs / 1e6,
          from: d.from,
          bytes: d.bytes,
          messages: d.messages,
          notes: d.notes,
        })),
      ),
    );
    expect(verdict.steps.filter((s) => !s.ok).map((s) => s.event)).toEqual(['request3', 'settings']);
    expect(verdict.totalOk).toBe(false);
  });

  it('the check fails on the quick replies when the loopback client updates every 10 ms in the join', () => {
    const slow = stock(['traffic.phases[0].updatePeriodMs.client=10']);
    expect(slow.steps.filter(off).map((s) => s.event)).toEqual(expect.arrayContaining(['response1']));
  });

  it('only the join runs at 1 ms: the lobby after it updates the server every 5 ms and the client every 10 ms', () => {
    const { observer, sent } = recordSent();
    const { session } = runScenario(loadScenario('fragment-ack-bug'), { preset: 'stock', durationUs: 30e6, observer });
    const lobbyUs = session.traffic.phaseLog.find((p) => p.kind === 'lobby')?.startUs as number;
    expect(lobbyUs).toBeGreaterThan(1.293e6);
    /** The largest period every send time of `from` in [fromUs, toUs) keeps to: the gcd of their gaps. */
    const grid = (from: 'client' | 'server', fromUs: number, toUs: number) => {
      const times = sent.filter((d) => d.from === from && d.timeUs >= fromUs && d.timeUs < toUs).map((d) => d.timeUs);
      const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
      return { count: times.length, periodMs: times.slice(1).reduce((g, t, i) => gcd(g, t - times[i]), 0) / 1000 };
    };
    // The join's sends keep to no coarser grid than 1 ms; the lobby's to the scenario's 5 and 10 ms.
    expect(grid('client', 0, lobbyUs).periodMs).toBe(1);
    expect(grid('server', 0, lobbyUs).periodMs).toBe(1);
    const lobbyClient = grid('client', lobbyUs, 30e6);
    const lobbyServer = grid('server', lobbyUs, 30e6);
    expect(lobbyClient.count).toBeGreaterThan(5);
    expect(lobbyServer.count).toBeGreaterThan(3);
    expect(lobbyClient.periodMs % 10).toBe(0);
    expect(lobbyServer.periodMs % 5).toBe(0);
  });
});
