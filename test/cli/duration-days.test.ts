// `--duration 7d`: the README says runs go up to 7 days, so the flag and the
// scenario field take days; past 7 days the refusal names the limit.
import { describe, expect, it } from 'vitest';
import { MAX_DURATION_US } from '../../src/core/engine/index.js';
import { parseScenario } from '../../src/model/scenario/index.js';
import { cli } from '../support/cli.js';

describe('durations in days', () => {
  it('a scenario file may say "7d", the longest run', () => {
    const s = parseScenario('{ "name": "week", "duration": "7d" }', 'week.json');
    expect(s.durationUs).toBe(MAX_DURATION_US);
  });

  it('--duration 8d is refused for its length, not its form', async () => {
    const r = await cli(['run', 'lobby-idle', '--duration', '8d']);
    expect(r.stderr).toBe('bcsim: --duration: expected at most 168h (7 days), got "8d"\n');
    expect(r.code).toBe(2);
  });

  it('--duration 0.00002d runs (1.728 s)', async () => {
    const r = await cli(['run', 'lobby-idle', '--duration', '0.00002d', '--json']);
    // The run is shorter than lobby-idle's phase plan, so the one warning names the cut.
    expect(r.stderr).toBe(
      'bcsim: warning: the phase plan is cut: the run ends at 1.728s, and traffic.phases[1] (lobby) never runs\n',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).simulatedSeconds).toBeCloseTo(1.728, 6);
  });
});
