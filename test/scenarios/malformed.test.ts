// Every malformed scenario is rejected with one line naming the file, the JSON
// path and the reason, and exit code 2.
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const DIR = 'test/scenarios/malformed';

const CASES: Array<[string, string]> = [
  ['bad-json', 'invalid JSON: Expected double-quoted property name at line 4, column 1'],
  ['wrong-type', 'seed: expected a whole number seed 0..4294967295, got "one"'],
  ['loss-out-of-range', 'link.clientToServer.loss: expected a number between 0 and 1, got 1.5'],
  ['loss-high', 'link.clientToServer.loss: expected a number between 0 and 1, got "high"'],
  ['unknown-key', 'durration: unknown key "durration" (did you mean duration?)'],
  ['unknown-nested-key', 'link.serverToClient.lossy: unknown key "lossy" (did you mean link.serverToClient.loss?)'],
  ['bad-duration', 'duration: expected a duration like "30s", "10m", "4h" or "1h30m", got "4 hours"'],
  ['unknown-preset', 'mode.preset: expected one of stock, fixed, got "fast"'],
  [
    'unknown-cause',
    'mode.fragmentAckCause: expected one of none, ack-format-mismatch, partial-ack, retransmit-reentry, retransmit-all, matcher-rejects-fragments, got "gremlins"',
  ],
  [
    'unknown-phase',
    'traffic.phases[1].kind: expected a phase kind: join, lobby, combat, lull, quiet, disconnect or timeout, got "party"',
  ],
  ['missing-name', 'name: expected a scenario name, but it is missing'],
  ['repeat-out-of-range', 'traffic.repeatFrom: expected a phase index below 2, got 2'],
  ['outage-backwards', 'link.both.outages[0].end: must be after start (5m)'],
  ['bad-expect-op', 'expect.fixed["delivery.reliableLost"].within: unknown key "within"'],
  ['top-level-array', 'expected a JSON object at the top level'],
  ['negative-latency', 'link.both.latencyMs: expected a number of milliseconds >= 0, got -5'],
  ['both-loss-models', 'link.both.gilbertElliott: give either loss (Bernoulli) or gilbertElliott, not both'],
  ['empty-expect', 'expect.fixed: expected at least one assertion (an empty block checks nothing), got an object'],
  ['huge-duration', 'duration: expected a duration of at most 168h (7 days), got "200h"'],
  [
    'manifest-bad-hash',
    'traffic.manifest.rounds[0].tree.files[0].contentHash: expected a u32 hash: a whole number 0..4294967295 or a "0x…" hex string of 1 to 8 digits, got "F8A0A768"',
  ],
  [
    'manifest-too-many-files',
    'traffic.manifest.rounds[1].tree.files: more than 4096 files in the manifest (4100 so far)',
  ],
  [
    'manifest-no-final-round',
    'traffic.manifest.rounds[1].round: the last round must be 0xFF (255), the one after which the server sends the settings; got 1',
  ],
];

describe('malformed scenario files', () => {
  it.each(CASES)('%s.json is rejected with the exact message and exit 2', async (name, message) => {
    const file = `${DIR}/${name}.json`;
    const r = await cli(['run', file]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`bcsim: ${file}: ${message}\n`);
    expect(r.code).toBe(2);
  });
});

describe('--set overrides', () => {
  it.each([
    [['--set', 'link.nope.loss=0.1'], '--set link.nope.loss=0.1: link.nope: unknown key "nope"'],
    [['--set', '=3'], '--set =3: expected path=value, for example link.both.loss=0.1'],
    [
      ['--set', 'duration=forever'],
      '--set duration=forever: duration: expected a duration like "30s", "10m", "4h" or "1h30m", got "forever"',
    ],
    [['--set', 'seed.x=1'], '--set seed.x=1: seed: is not an object or array, so it has no fields'],
    [['--set', 'link.both.loss=2'], '--set link.both.loss=2: link.both.loss: expected a number between 0 and 1, got 2'],
    [
      ['--set', 'traffic.phases[7].kind=lobby'],
      '--set traffic.phases[7].kind=lobby: traffic.phases: index 7 is past the end (2 items; use [2] to append)',
    ],
    [
      ['--set', 'traffic.phases[2].kind=dance'],
      '--set traffic.phases[2].kind=dance: traffic.phases[2].kind: expected a phase kind: join, lobby, combat, lull, quiet, disconnect or timeout, got "dance"',
    ],
    [['--set', 'a..b=1'], '--set a..b=1: bad path segment "" (expected names, [index] or .index)'],
    [['--set', '__proto__.polluted=1'], '--set __proto__.polluted=1: "__proto__" cannot be set'],
    [
      ['--set', 'tickMs=0.0001'],
      '--set tickMs=0.0001: tickMs: expected a number of milliseconds from 1 to 10,000, got 0.0001',
    ],
    [
      ['--set', 'transport.fragmentChunkBytes=505'],
      '--set transport.fragmentChunkBytes=505: transport.fragmentChunkBytes: expected at most 503 bytes, got 505',
    ],
  ])('%j is validated like the file and blamed on the flag', async (flags, message) => {
    const r = await cli(['run', 'fragment-ack-bug', ...flags]);
    expect(r.stderr).toBe(`bcsim: ${message}\n`);
    expect(r.code).toBe(2);
  });

  it('a valid override changes the run', async () => {
    const base = JSON.parse((await cli(['run', 'fragment-ack-bug', '--duration', '30s', '--json'])).stdout);
    const r = await cli([
      'run',
      'fragment-ack-bug',
      '--duration',
      '30s',
      '--json',
      '--set',
      'link.both.loss=0.3',
      '--set',
      'seed=9',
    ]);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.seed).toBe(9);
    expect(base.links.clientToServer.dropped).toBe(0);
    expect(s.links.clientToServer.dropped).toBeGreaterThan(0);
  });
});

describe('the minimal scenario', () => {
  it('{ "name": "x" } runs a join then a lobby on a perfect link', async () => {
    const r = await cli(['run', 'test/scenarios/minimal.json', '--json', '--mode', 'fixed']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.scenario).toBe('x');
    expect(s.simulatedSeconds).toBe(120);
    expect(s.links.clientToServer.dropped + s.links.serverToClient.dropped).toBe(0);
    // The whole join went through: 15 steps, 20 messages, and the server echoes keepalives.
    expect(s.delivery.reliableDelivered).toBe(s.delivery.reliableSent);
    expect(s.delivery.reliableSent).toBeGreaterThanOrEqual(20);
  });
});
