// Explicit fault lists: a recorded run's link decisions, replayed alone, give the same
// run; each action does what it says and is counted; the scenario schema checks the list.
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { withRecorders } from '../../src/tools/shrink/record.js';
import { toEntry } from '../../src/tools/shrink/case.js';

const NOISY = [
  'duration=40s',
  'link.clientToServer.loss=0.1',
  'link.serverToClient.gilbertElliott={"pGoodToBad":0.05,"pBadToGood":0.3}',
  'link.both.jitterMs=40',
  'link.both.latencyMs=30',
  'link.clientToServer.reorder=0.2',
  'link.clientToServer.reorderGap=3',
  'link.both.duplicate=0.05',
  'link.both.duplicateDelayMs=20',
  'traffic.phases=["join",{"kind":"combat","duration":"30s","reliablePerSecond":20}]',
];

function doc(link: Record<string, unknown>): string {
  return JSON.stringify({
    name: 'faults',
    duration: '10s',
    seed: 3,
    mode: 'fixed',
    link,
    traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: 10 }] },
  });
}

describe('explicit link fault lists', () => {
  it('a recorded run, replayed from its fault list alone, has the same trace hash', () => {
    const original = loadScenario('fragment-ack-bug', { sets: NOISY });
    const { scenario, recorded } = withRecorders(original);
    const first = runScenario(scenario, { preset: 'fixed' });
    const untouched = runScenario(original, { preset: 'fixed' });
    // Recording is an observer: it changes nothing.
    expect(first.summary.traceHash).toBe(untouched.summary.traceHash);
    const kinds = new Set([...recorded.clientToServer, ...recorded.serverToClient].map((f) => f.action));
    expect([...kinds].sort()).toEqual(['delay', 'drop', 'duplicate']);

    // The replay: random processes off (no loss, jitter, reorder or duplicate keys), only the lists.
    const replaySets = [
      ...NOISY.filter((s) => !/loss|gilbertElliott|jitter|reorder|duplicate/.test(s)),
      `link.clientToServer.faults=${JSON.stringify(recorded.clientToServer.map(toEntry))}`,
      `link.serverToClient.faults=${JSON.stringify(recorded.serverToClient.map(toEntry))}`,
    ];
    const replayed = runScenario(loadScenario('fragment-ack-bug', { sets: replaySets }), { preset: 'fixed' });
    expect(replayed.summary.traceHash).toBe(first.summary.traceHash);
    const links = replayed.session.connections[0].links;
    // Every entry was consulted at the very send time it was recorded at.
    expect(links.clientToServer.faultStats).toEqual({ applied: recorded.clientToServer.length, offSchedule: 0 });
    expect(links.serverToClient.faultStats).toEqual({ applied: recorded.serverToClient.length, offSchedule: 0 });
    expect(links.clientToServer.counters.droppedBy.loss).toBe(
      first.session.connections[0].links.clientToServer.counters.droppedBy.loss,
    );
  });

  it('drop, duplicate and delay fire on the datagram they name and are counted', () => {
    const faults = [
      { at: '0s', datagram: 0, action: 'drop' },
      { at: '0s', datagram: 1, action: 'duplicate', delayMs: 5 },
      { at: '0s', datagram: 20, action: 'delay', delayMs: 400 },
    ];
    const result = runScenario(parseScenario(doc({ clientToServer: { faults } }), 'faults.json'));
    const link = result.session.connections[0].links.clientToServer;
    expect(link.counters.droppedBy.loss).toBe(1);
    expect(link.counters.duplicated).toBe(1);
    expect(link.counters.reordered).toBeGreaterThan(0);
    expect(link.faultStats?.applied).toBe(3);
    // `at` is informative: the first datagrams were not sent at 0 s, and that is counted, not fatal.
    expect(link.faultStats?.offSchedule).toBeGreaterThan(0);
  });

  it('an empty list switches the random processes off', () => {
    const noisy = runScenario(parseScenario(doc({ both: { loss: 0.3 } }), 'a.json'));
    const quiet = runScenario(parseScenario(doc({ both: { loss: 0.3, faults: [] } }), 'b.json'));
    expect(noisy.session.connections[0].links.clientToServer.counters.droppedBy.loss).toBeGreaterThan(0);
    expect(quiet.session.connections[0].links.clientToServer.counters.droppedBy.loss).toBe(0);
  });

  it('the schema names the path of a bad entry', () => {
    const bad = (faults: unknown) => () => parseScenario(doc({ serverToClient: { faults } }), 'bad.json');
    expect(bad([{ at: '1s', datagram: -1, action: 'drop' }])).toThrow(/link\.serverToClient\.faults\[0\]\.datagram/);
    expect(bad([{ at: '1s', datagram: 1, action: 'explode' }])).toThrow(/faults\[0\]\.action/);
    expect(bad([{ at: '1s', datagram: 1, action: 'drop', extra: 1 }])).toThrow(/faults\[0\]/);
    expect(bad([{ at: '1s', datagram: 1, action: 'delay' }])).toThrow(/faults\[0\]\.delayMs.*needs delayMs/);
    expect(
      bad([
        { at: '1s', datagram: 1, action: 'drop' },
        { at: '1s', datagram: 1, action: 'drop' },
      ]),
    ).toThrow(/faults\[1\].*second "drop"/);
    expect(bad(Array.from({ length: 100_001 }, (_, i) => ({ at: '1s', datagram: i, action: 'drop' })))).toThrow(
      /at most 100,000 faults/,
    );
  });
});
