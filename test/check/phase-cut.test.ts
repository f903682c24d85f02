// A --duration shorter than a scenario's phase plan: the cut is said once on
// stderr and recorded in settings.phasePlanCut, and `expect` judges what the run
// can still tell. An end-of-run value (.final) and a lower bound not reached are
// not applicable (never a pass, never a failure); an upper bound is judged.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const MY_FIX = 'scenarios/examples/my-fix.json';
const CUT_LINE =
  'bcsim: warning: the phase plan is cut: the run ends at 1m inside traffic.phases[1] (combat, 1m), and traffic.phases[2] (disconnect) never runs\n';

describe('a run that ends inside its phase plan', () => {
  it('says which phases it drops, on stderr and in --json settings', async () => {
    const r = await cli(['run', MY_FIX, '--duration', '1m', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(CUT_LINE);
    const cut = JSON.parse(r.stdout).settings.phasePlanCut;
    expect(cut).toMatchObject({
      endsAtSeconds: 60,
      inPhase: { index: 1, kind: 'combat', durationSeconds: 60 },
      notRun: [{ index: 2, kind: 'disconnect' }],
    });
    expect(cut.inPhase.startSeconds).toBeGreaterThan(0);
  });

  it('says nothing when the run reaches the end of its plan', async () => {
    const r = await cli(['run', MY_FIX, '--json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).settings).not.toHaveProperty('phasePlanCut');
  });

  it('a plan whose last phase is open-ended, or a cycle once entered, is never cut', async () => {
    for (const args of [
      ['fragment-ack-bug', '--duration', '10s'],
      ['long-session', '--duration', '30m'],
    ]) {
      const r = await cli(['run', ...args, '--json']);
      expect(r.stderr, args.join(' ')).toBe('');
    }
  });
});

describe("check's own example with a cut plan", () => {
  it('runs as --help prints it: exit 0, the cut said once, the end-of-run checks not applicable', async () => {
    const r = await cli(['check', MY_FIX, '--seeds', '1..20', '--duration', '1m', '--set', 'link.both.loss=0.1']);
    expect(r.stderr).toBe(CUT_LINE);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('✓ my-fix [fixed] seed 1: 7 checks passed, 2 not applicable');
    expect(r.stdout).toContain(
      '20 runs: 140 passed, 0 failed, 40 not applicable (the run ended inside its phase plan)',
    );
  }, 60_000);

  it('judges an upper bound already broken, passes a lower bound already reached, and leaves the rest not applicable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-cut-'));
    const file = join(dir, 'cut.json');
    const doc = JSON.parse(readFileSync(MY_FIX, 'utf8'));
    doc.expect = {
      fixed: {
        'delivery.reliableSent': { gt: 5, lt: 10 },
        'delivery.reliableDelivered': { gte: 1000000 },
        'peers.*.ackOutbox.final': { gte: 0 },
        'delivery.reliableLost': { eq: 0 },
      },
    };
    writeFileSync(file, JSON.stringify(doc));
    const junit = join(dir, 'junit.xml');
    const r = await cli(['check', file, '--duration', '1m', '--junit', junit]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✓ delivery\.reliableSent = \d+ {2}\(expected > 5\)/);
    expect(r.stdout).toMatch(/✗ delivery\.reliableSent = \d+ {2}\(expected < 10\)/);
    expect(r.stdout).toMatch(
      /– delivery\.reliableDelivered = \d+ {2}\(expected >= 1000000\): not applicable, a lower bound not reached/,
    );
    expect(r.stdout).toMatch(
      /– peers\.server\.ackOutbox\.final = \d+ {2}\(expected >= 0\): not applicable, an end-of-run value/,
    );
    expect(r.stdout).toContain('✓ delivery.reliableLost = 0');
    expect(readFileSync(junit, 'utf8')).toMatch(
      /<testcase classname="my-fix \[fixed\]" name="delivery.reliableDelivered &gt;= 1000000">\s*<skipped message="[^"]*not applicable/,
    );

    // The same file over its whole plan judges every assertion.
    const whole = await cli(['check', file, '--json']);
    const results = JSON.parse(whole.stdout).runs[0].results as Array<{
      path: string;
      pass: boolean;
      notApplicable?: string;
    }>;
    expect(results.filter((a) => a.notApplicable !== undefined)).toEqual([]);
    expect(results.find((a) => a.path === 'delivery.reliableDelivered')?.pass).toBe(false);
  }, 60_000);
});

describe("the README's first sweep example", () => {
  it('a 2-minute cut of lossy-link: stock runs leave their delivered-count floor not applicable, and nothing fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-cut-sweep-'));
    const out = join(dir, 'lossy.jsonl');
    const r = await cli([
      'sweep',
      'lossy-link',
      '--modes',
      'stock,fixed',
      '--seeds',
      '1..3',
      '--duration',
      '2m',
      '--out',
      out,
      '--jobs',
      '1',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe(
      'bcsim: warning: the phase plan is cut: the run ends at 2m inside traffic.phases[1] (combat, 9m40s), and traffic.phases[2] (disconnect) never runs\n',
    );
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const line of lines.filter((l) => l.mode === 'stock'))
      expect(line.verdict).toEqual({ passed: true, failed: [], notApplicable: ['delivery.reliableDelivered'] });
    expect(r.stdout).toContain(
      '6 runs, none failed; 3 ended inside their phase plan, with expectations not applicable',
    );
  }, 60_000);
});
