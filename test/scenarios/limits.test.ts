// Every value a scenario can hold runs, or is refused up front with one
// ScenarioError line: the schema's bounds equal the checks of the
// code behind them, arrays and strings are bounded, and absurd work is refused.
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_PENDING_EVENTS } from '../../src/core/engine/simulator.js';
import { ScenarioError } from '../../src/model/scenario/errors.js';
import { MAX_SCENARIO_FILE_BYTES, builtinNames, loadScenario, parseScenario } from '../../src/model/scenario/load.js';
import { MAX_ESTIMATED_EVENTS, estimateEvents } from '../../src/model/scenario/resolve.js';
import {
  MAX_ACK_OUTBOX_LIMIT,
  MAX_ASSERTIONS,
  MAX_DESCRIPTION_CHARS,
  MAX_DROP_RULES,
  MAX_NAME_CHARS,
  MAX_OUTAGES,
  MAX_QUEUE_LIMIT,
} from '../../src/model/scenario/schema.js';
import { MAX_PHASES } from '../../src/model/scenario/traffic-schema.js';
import { runScenario } from '../../src/model/session/run.js';
import { filledPayload, templatePayload } from '../../src/model/traffic/payloads.js';
import { DEFAULT_PARAMS, MAX_SEND_WINDOW } from '../../src/model/transport/switches.js';
import { cli } from '../support/cli.js';

const BASE = {
  name: 'limits',
  duration: '8s',
  traffic: { phases: ['join', { kind: 'combat', reliablePerSecond: 20 }] },
};
const RUNS = 'runs';

/** Loads BASE with `--set` overrides and runs it; 'runs', or the one-line refusal. */
function outcome(sets: string[]): string {
  let scenario;
  try {
    scenario = parseScenario(JSON.stringify(BASE), 'limits.json', sets);
  } catch (error) {
    if (error instanceof ScenarioError) return error.message;
    throw error;
  }
  runScenario(scenario, { durationUs: Math.min(scenario.durationUs, 8_000_000) });
  return RUNS;
}

const set = (path: string, value: unknown) => `${path}=${JSON.stringify(value)}`;
/** A short phase 1 with these fields: the rate extremes stay cheap. */
const phase = (fields: Record<string, unknown>) =>
  set('traffic.phases[1]', { kind: 'combat', duration: '2s', ...fields });

// [case, --set overrides, 'runs' or the expected reason (after "<flag>: <path>: ")]
const BOUNDARIES: Array<[string, string[], string]> = [
  ['tickMs min', [set('tickMs', 1)], RUNS],
  ['tickMs max', [set('tickMs', 10_000)], RUNS],
  ['tickMs below', [set('tickMs', 0.999)], 'expected a number of milliseconds from 1 to 10,000, got 0.999'],
  ['tickMs infinite', ['tickMs=1e999'], 'expected a number of milliseconds from 1 to 10,000, got Infinity'],
  ['duration zero', [set('duration', 0)], 'expected a duration > 0'],
  ['duration above', [set('duration', '168h1s')], 'expected a duration of at most 168h (7 days), got "168h1s"'],
  ['seed max', [set('seed', 4294967295)], RUNS],
  ['seed above', [set('seed', 4294967296)], 'expected a whole number seed 0..4294967295, got 4294967296'],
  ['datagramsPerUpdate max', [set('transport.datagramsPerUpdate', 64)], RUNS],
  [
    'datagramsPerUpdate zero',
    [set('transport.datagramsPerUpdate', 0)],
    'expected a whole number of datagrams >= 1, got 0',
  ],
  ['ackResendIntervalMs 0', [set('transport.ackResendIntervalMs', 0)], RUNS],
  ['ackResendIntervalMs max', [set('transport.ackResendIntervalMs', 3_600_000)], RUNS],
  [
    'ack pass one just below free-at',
    [set('transport.ackPassOneLimit', 254), set('transport.ackFreeAtCount', 255)],
    RUNS,
  ],
  ['ack pass one at free-at', [set('transport.ackPassOneLimit', 9)], 'must be greater than ackPassOneLimit (9)'],
  [
    'fragmentChunkBytes 1 with 4 KB messages',
    [set('transport.fragmentChunkBytes', 1), phase({ stateUpdateBytes: [4096, 4096] })],
    RUNS,
  ],
  [
    'fragmentChunkBytes max',
    [set('transport.fragmentChunkBytes', 503), phase({ stateUpdateBytes: [4096, 4096] })],
    RUNS,
  ],
  ['fragmentChunkBytes above', [set('transport.fragmentChunkBytes', 504)], 'expected at most 503 bytes, got 504'],
  ['keepaliveIdleMs tiny', [set('transport.keepaliveIdleMs', 0.001)], RUNS],
  ['peerTimeoutMs tiny', [set('transport.peerTimeoutMs', 0.001)], RUNS],
  ['peerTimeoutMs max', [set('transport.peerTimeoutMs', 86_400_000)], RUNS],
  ['maxMessageAgeMs tiny', [set('transport.maxMessageAgeMs', 0.001), set('link.both.loss', 0.5)], RUNS],
  ['clientTickOffsetMs max', [set('transport.clientTickOffsetMs', 10_000)], RUNS],
  [
    'queue limits 1',
    [
      set('transport.firstSendQueueLimit', 1),
      set('transport.retransmitQueueLimit', 1),
      set('transport.ackOutboxLimit', 1),
    ],
    RUNS,
  ],
  [
    'queue limits max',
    [
      set('transport.firstSendQueueLimit', MAX_QUEUE_LIMIT),
      set('transport.retransmitQueueLimit', MAX_QUEUE_LIMIT),
      set('transport.ackOutboxLimit', MAX_ACK_OUTBOX_LIMIT),
    ],
    RUNS,
  ],
  [
    'firstSendQueueLimit above',
    [set('transport.firstSendQueueLimit', MAX_QUEUE_LIMIT + 1)],
    `expected at most ${MAX_QUEUE_LIMIT.toLocaleString('en-US')} messages, got ${MAX_QUEUE_LIMIT + 1}`,
  ],
  [
    'ackOutboxLimit above',
    [set('transport.ackOutboxLimit', MAX_ACK_OUTBOX_LIMIT + 1)],
    `expected at most ${MAX_ACK_OUTBOX_LIMIT.toLocaleString('en-US')} entries, got ${MAX_ACK_OUTBOX_LIMIT + 1}`,
  ],
  [
    'retransmit tiny base',
    [
      set('mode', {
        preset: 'stock',
        retransmit: { backoff: 'exponential', baseMs: 0.001, capMs: 3_600_000, retryLimit: 1_000_000 },
      }),
      set('link.both.loss', 0.3),
    ],
    RUNS,
  ],
  ['send window 1', [set('mode', { preset: 'fixed', sendWindow: 1, ackSendLimit: 1 })], RUNS],
  ['send window max', [set('mode', { preset: 'fixed', sendWindow: MAX_SEND_WINDOW, ackSendLimit: 255 })], RUNS],
  ['latency max', [set('link.both.latencyMs', 3_600_000)], RUNS],
  ['normal jitter max', [set('link.both.jitterMs', 3_600_000), set('link.both.jitter', 'normal')], RUNS],
  ['exponential jitter max', [set('link.both.jitterMs', 3_600_000), set('link.both.jitter', 'exponential')], RUNS],
  ['duplicate delay max', [set('link.both.duplicate', 1), set('link.both.duplicateDelayMs', 3_600_000)], RUNS],
  ['reorder gap max', [set('link.both.reorder', 1), set('link.both.reorderGap', 1_000_000)], RUNS],
  [
    'bandwidth min, longest queue',
    [
      set('link.both.bandwidthBytesPerSecond', 1),
      set('link.both.burstBytes', 1),
      set('link.both.queueLimitPackets', 1_000_000),
    ],
    RUNS,
  ],
  ['bandwidth max', [set('link.both.bandwidthBytesPerSecond', 1e12), set('link.both.burstBytes', 1e9)], RUNS],
  [
    'bandwidth below',
    [set('link.both.bandwidthBytesPerSecond', 0.999)],
    'expected a number of bytes per second >= 1, got 0.999',
  ],
  [
    'bandwidth issue example',
    ['link.both.bandwidthBytesPerSecond=1e-6'],
    'expected a number of bytes per second >= 1, got 0.000001',
  ],
  ['slot min', [set('link.both.slotMs', 0.001)], RUNS],
  ['slot max', [set('link.both.slotMs', 3_600_000)], RUNS],
  [
    'slot below',
    [set('link.both.slotMs', 0.0001)],
    'expected a number of milliseconds >= 0.001 (1 microsecond), got 0.0001',
  ],
  ['outage of the whole week', [set('link.both.outages', [{ start: 0, end: '168h' }])], RUNS],
  ['drop rule extremes', [set('link.both.drop', [{ match: {}, first: 1e9, from: 0, until: '168h' }])], RUNS],
  ['smallest rates', [phase({ stateUpdatesPerSecond: 0.000001, reliablePerSecond: 0.000001 })], RUNS],
  ['largest rates', [phase({ stateUpdatesPerSecond: 10_000, reliablePerSecond: 10_000 })], RUNS],
  [
    'rate below the minimum',
    [phase({ stateUpdatesPerSecond: 0.0000009 })],
    'expected 0 or a rate of at least 0.000001, got 9e-7',
  ],
  ['chat rate extremes', [set('traffic.phases[1]', { kind: 'lobby', chatPerMinute: 0.000001 })], RUNS],
  ['smallest messages', [phase({ stateUpdateBytes: [3, 3] })], RUNS],
  ['largest messages', [phase({ stateUpdateBytes: [4096, 4096], stateUpdatesPerSecond: 500 })], RUNS],
  ['messages above 4 KB', [phase({ stateUpdateBytes: [15, 4097] })], 'expected at most 4,096 bytes, got 4097'],
];

describe('every boundary value runs or is refused in one line', () => {
  it.each(BOUNDARIES)('%s', (_name, sets, expected) => {
    const result = outcome(sets);
    if (expected === RUNS) expect(result).toBe(RUNS);
    // A cross-field rule names the file unless a --set wrote the very path it names.
    else expect(result).toMatch(new RegExp(`^(--set [^\\n]+|limits\\.json: [\\w.]+): ${escape(expected)}$`));
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Validates `fields` on top of BASE, without running. */
function load(fields: Record<string, unknown>): string {
  try {
    parseScenario(JSON.stringify({ ...BASE, ...fields }), 'limits.json');
    return 'ok';
  } catch (error) {
    if (error instanceof ScenarioError) return error.message;
    throw error;
  }
}

const outages = (n: number) => Array.from({ length: n }, (_, i) => ({ start: i, end: i + 0.5 }));
const rules = (n: number) => Array.from({ length: n }, () => ({ match: { type: 'ack' }, probability: 0.5 }));
const lobbies = (n: number) => Array.from({ length: n }, () => ({ kind: 'lobby', duration: '1s' }));
const assertions = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`peers.server.x${i}`, { gte: 0 }]));

describe('arrays and strings have maximum lengths', () => {
  it.each([
    [
      'name',
      { name: 'n'.repeat(MAX_NAME_CHARS) },
      { name: 'n'.repeat(MAX_NAME_CHARS + 1) },
      'name: expected a name of at most 200 characters, got 201 characters',
    ],
    [
      'description',
      { description: 'd'.repeat(MAX_DESCRIPTION_CHARS) },
      { description: 'd'.repeat(10 * 1024 * 1024) },
      'description: expected at most 10,000 characters, got 10,485,760 characters',
    ],
    [
      'outages',
      { link: { both: { outages: outages(MAX_OUTAGES) } } },
      { link: { both: { outages: outages(300_000) } } },
      'link.both.outages: expected at most 1,000 outages, got 300,000 items',
    ],
    [
      'drop rules',
      { link: { serverToClient: { drop: rules(MAX_DROP_RULES) } } },
      { link: { serverToClient: { drop: rules(100_000) } } },
      'link.serverToClient.drop: expected at most 1,000 drop rules, got 100,000 items',
    ],
    [
      'phases',
      { traffic: { phases: lobbies(MAX_PHASES) } },
      { traffic: { phases: lobbies(200_000) } },
      'traffic.phases: expected at most 1,000 phases, got 200,000 items',
    ],
    [
      'assertions',
      { expect: { fixed: assertions(MAX_ASSERTIONS) } },
      { expect: { fixed: assertions(MAX_ASSERTIONS + 1) } },
      'expect.fixed: expected at most 1,000 assertions, got 1,001 keys',
    ],
  ])('%s: the maximum loads, more is refused', (_name, atMax, above, message) => {
    expect(load(atMax)).toBe('ok');
    expect(load(above)).toBe(`limits.json: ${message}`);
  });

  it('a file larger than any scenario is refused before it is read', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bcsim-limits-')), 'huge.json');
    writeFileSync(file, '');
    truncateSync(file, MAX_SCENARIO_FILE_BYTES + 1); // sparse: nothing is written
    expect(() => loadScenario(file)).toThrow(
      /^.*huge\.json: the file is 16,777,217 bytes, more than the 16,777,216 a scenario may have$/,
    );
  });
});

describe('JSON the parser tolerates is refused', () => {
  it('a duplicate key names the key, its line and column and the object it is in', async () => {
    const r = await cli(['run', 'test/scenarios/malformed/duplicate-key.json']);
    expect(r.stderr).toBe(
      'bcsim: test/scenarios/malformed/duplicate-key.json: link.both: duplicate key "loss" at line 7, column 7\n',
    );
    expect(r.code).toBe(2);
  });

  it('a duplicate key inside a --set value is blamed on the flag', async () => {
    const r = await cli(['run', 'lossy-link', '--set', 'link.both={"loss":0.1,"loss":0.2}']);
    expect(r.stderr).toBe(
      'bcsim: --set link.both={"loss":0.1,"loss":0.2}: link.both: duplicate key "loss" at line 1, column 13\n',
    );
    expect(r.code).toBe(2);
  });

  it('absurd nesting is refused in one line, not a stack overflow', () => {
    const deep = `{ "name": "deep", "description": ${'['.repeat(200_000)}${']'.repeat(200_000)} }`;
    expect(() => parseScenario(deep, 'deep.json')).toThrow(
      'deep.json: description: nested deeper than 64 levels at line 1, column 97',
    );
  });
});

describe('the choice of error does not depend on the locale', () => {
  it('issues are ordered by code unit: "B" sorts before "a"', () => {
    const text = JSON.stringify({ ...BASE, expect: { fixed: { a: { within: 1 }, B: { within: 1 } } } });
    expect(() => parseScenario(text, 'order.json')).toThrow('order.json: expect.fixed.B.within: unknown key "within"');
  });
});

describe('work and memory limits', () => {
  it('a run estimated above the event budget is refused before it starts', () => {
    expect(() =>
      runScenario(parseScenario(JSON.stringify({ ...BASE, duration: '168h', tickMs: 1 }), 'week.json')),
    ).toThrow(
      /^week\.json: too much work: about 1\.3 billion events estimated for 168h, the budget is 1 billion \(hours of CPU\); shorten the run or lower tickMs, datagramsPerUpdate or the traffic rates$/,
    );
    // Phases of a microsecond, cycled: counted in closed form, and refused.
    const flicker = {
      ...BASE,
      duration: '10m',
      traffic: {
        phases: ['join', { kind: 'lobby', duration: '1us' }, { kind: 'lull', duration: '1us' }],
        repeatFrom: 1,
      },
    };
    expect(() => runScenario(parseScenario(JSON.stringify(flicker), 'flicker.json'))).toThrow(
      /too much work: about 2\.4 billion events/,
    );
    // The duration a run really gets counts, not the file's: a week of 1 ms updates given as a flag.
    const short = parseScenario(JSON.stringify({ ...BASE, tickMs: 1 }), 'short.json');
    expect(() => runScenario(short, { durationUs: 168 * 3600e6 })).toThrow(/^short\.json: too much work/);
  });

  it('the estimate tracks the real event count, and every built-in is well within budget', () => {
    for (const name of builtinNames())
      expect(estimateEvents(loadScenario(name))).toBeLessThan(MAX_ESTIMATED_EVENTS / 100);
    const scenario = loadScenario('lossy-link');
    const ratio = runScenario(scenario).summary.events / estimateEvents(scenario);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('too many datagrams in flight end the run with one limit line', async () => {
    const sets = [
      'tickMs=1',
      'transport.datagramsPerUpdate=64',
      'transport.peerTimeoutMs=86400000',
      'link.both.latencyMs=3600000',
      'traffic.phases=[{"kind":"lull","stateUpdatesPerSecond":10000,"stateUpdateBytes":[400,400],"arrival":"periodic"}]',
    ];
    const r = await cli(['run', 'test/scenarios/minimal.json', '--json', ...sets.flatMap((s) => ['--set', s])]);
    expect(r.stderr).toBe(
      `bcsim: limit: simulator: more than ${MAX_PENDING_EVENTS.toLocaleString('en-US')} pending events (datagrams in flight and timers); lower the latency, rates or duplication\n`,
    );
    expect(r.code).toBe(2);
  });

  it('limits stay within the memory budget (measured bytes per entry)', () => {
    expect(MAX_PENDING_EVENTS).toBeLessThanOrEqual(150_000); // <= ~1,900 B each
    expect(DEFAULT_PARAMS.ackOutboxLimit).toBeLessThanOrEqual(MAX_ACK_OUTBOX_LIMIT); // ~265 B each, two peers
    expect(MAX_ACK_OUTBOX_LIMIT).toBeLessThanOrEqual(1 << 17);
    expect(DEFAULT_PARAMS.firstSendQueueLimit).toBeLessThanOrEqual(MAX_QUEUE_LIMIT);
    expect(DEFAULT_PARAMS.retransmitQueueLimit).toBeLessThanOrEqual(MAX_QUEUE_LIMIT);
  });
});

describe('generated payloads', () => {
  it('are exactly the requested size for every allowed size, with the bytes of filledPayload', () => {
    for (const bytes of [0, 1, 2, 17, 511, 512, 513, 4093, 4096, 5000]) {
      for (const salt of [1, 15, 16, 12345]) {
        const payload = templatePayload(0x1c, bytes, salt);
        expect(payload.length).toBe(Math.max(1, bytes));
        // The reference: filledPayload(opcode, size, opcode * 1000 + salt % 16).
        expect([...payload]).toEqual([...filledPayload(0x1c, Math.max(1, bytes), 0x1c * 1000 + (salt % 16))]);
      }
    }
  });
});
