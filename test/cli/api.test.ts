// The library API and the installed binary.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import * as bcsim from '../../src/index.js';

describe('library API', () => {
  it('exposes what the CLI uses', () => {
    for (const name of [
      'loadScenario',
      'runScenario',
      'runComparison',
      'traceScenario',
      'reproduceFragmentAck',
      'reproduceAckOutbox',
      'checkScenario',
      'runCli',
      'writeReport',
    ]) {
      expect(typeof (bcsim as Record<string, unknown>)[name]).toBe('function');
    }
    const { summary } = bcsim.runScenario(bcsim.loadScenario('fragment-ack-bug'), { preset: 'fixed', durationUs: 5e6 });
    expect(summary.schema).toBe('bcsim.summary/1');
    expect(bcsim.codec.decodeDatagram(Uint8Array.of(0x02, 0x01, 0x01, 0x02, 0x00, 0x01, 0x01)).ok).toBe(true);
  });

  it('exposes the live mode as the live namespace', () => {
    for (const name of ['LivePeer', 'WallClock', 'runProxy', 'evaluateConformance', 'summarizeLive', 'bindUdp']) {
      expect(typeof (bcsim.live as Record<string, unknown>)[name]).toBe('function');
    }
    // An empty log exercises no rule, and no rule counts as passed.
    expect(
      bcsim.live.evaluateConformance([], bcsim.live.DEFAULT_CONFORMANCE_RULES, { endUs: 0 }).map((r) => r.status),
    ).toEqual(bcsim.live.DEFAULT_CONFORMANCE_RULES.map(() => 'not-exercised'));
  });
});

describe('the bcsim binary (built by npm test / prepare)', () => {
  it('prints help and exits 0', () => {
    const r = spawnSync(process.execPath, ['dist/cli/main.js', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: bcsim');
    for (const command of ['decode', 'run', 'compare', 'trace', 'reproduce', 'check', 'scenarios'])
      expect(r.stdout).toContain(command);
  });

  it('bad input: one line on stderr, exit 2, no stack trace', () => {
    const r = spawnSync(process.execPath, ['dist/cli/main.js', 'run', 'test/scenarios/malformed/loss-high.json'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'bcsim: test/scenarios/malformed/loss-high.json: link.clientToServer.loss: expected a number between 0 and 1, got "high"\n',
    );
  });
});
