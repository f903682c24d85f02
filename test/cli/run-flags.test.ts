// The same flag means the same thing everywhere: every command that runs a
// simulation takes the run flags of `bcsim run` (--mode, --seed, --duration,
// --loss, --set, --switch), and an unknown key names the nearest valid path.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const RUN_FLAGS = ['--mode', '--seed', '--duration', '--loss', '--set', '--switch'];
/** The commands that run a simulation, and how each is given a scenario. */
const SIMULATING: ReadonlyArray<{ command: string; args: string[] }> = [
  { command: 'run', args: ['run', 'lossy-link'] },
  { command: 'trace', args: ['trace', 'lossy-link'] },
  { command: 'compare', args: ['compare', 'lossy-link'] },
  { command: 'check', args: ['check', 'lossy-link'] },
  { command: 'sweep', args: ['sweep', 'lossy-link'] },
  { command: 'analyze', args: ['analyze', 'no-such.pcapng', '--against', 'lossy-link'] },
];

describe('the run flags', () => {
  it.each(SIMULATING)("$command lists them in --help (compare's columns are its modes)", async ({ command }) => {
    const r = await cli([command, '--help']);
    const listed = RUN_FLAGS.filter((flag) => new RegExp(`^\\s+${flag}\\b`, 'm').test(r.stdout));
    expect(listed).toEqual(command === 'compare' ? RUN_FLAGS.filter((f) => f !== '--mode') : RUN_FLAGS);
  });

  it.each(SIMULATING)('$command takes --loss (never "unknown option")', async ({ args }) => {
    // A bad value reaches the flag's own check: the option exists.
    const r = await cli([...args, '--loss', '2']);
    expect(r.stderr).toBe('bcsim: --loss: expected a decimal number between 0 and 1, got "2"\n');
    expect(r.code).toBe(2);
  });

  it('compare --mode points to --config instead of "unknown option"', async () => {
    const r = await cli(['compare', 'lossy-link', '--mode', 'fixed']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bcsim: --mode fixed: compare runs stock and fixed side by side; choose the columns with --config/,
    );
  });

  it('compare --loss replaces the loss models in every column, and the rerun commands carry it', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-compare-loss-'));
    const r = await cli(['compare', 'lossy-link', '--duration', '20s', '--loss', '0.3', '--out-dir', out, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const runs = Object.values(doc.runs ?? doc.columns ?? {}) as Array<{
      settings: { loss: number; rerun: string };
      links: { clientToServer: { droppedBy: { loss: number }; sent: number } };
    }>;
    expect(runs.length).toBe(2);
    for (const run of runs) {
      expect(run.settings.loss).toBe(0.3);
      expect(run.settings.rerun).toContain('--loss 0.3');
      const { droppedBy, sent } = run.links.clientToServer;
      expect(droppedBy.loss / sent).toBeGreaterThan(0.2);
    }
  });

  it("trace --duration is the run's simulated time, as in run: past the scenario's end, and the same run as --until inside it", async () => {
    const hash = (text: string) => /trace ([0-9a-f]{16})\n$/.exec(text)?.[1];
    const until = await cli(['trace', 'fragment-ack-bug', '--until', '10s', '--bytes', 'none']);
    const duration = await cli(['trace', 'fragment-ack-bug', '--duration', '10s', '--bytes', 'none']);
    expect(duration.code, duration.stderr).toBe(0);
    expect(hash(duration.stdout)).toBe(hash(until.stdout));
    const longer = await cli(['trace', 'fragment-ack-bug', '--duration', '130s', '--from', '121s', '--bytes', 'none']);
    const run = JSON.parse((await cli(['run', 'fragment-ack-bug', '--duration', '130s', '--json'])).stdout);
    expect(hash(longer.stdout)).toBe(run.traceHash.slice(0, 16));
    expect(longer.stdout).toMatch(/^ *12\d\.\d+ /m);
  });

  it('trace --loss is run --loss', async () => {
    const trace = await cli(['trace', 'lossy-link', '--duration', '5s', '--loss', '0.5', '--bytes', 'none']);
    const run = JSON.parse((await cli(['run', 'lossy-link', '--duration', '5s', '--loss', '0.5', '--json'])).stdout);
    expect(/trace ([0-9a-f]{16})\n$/.exec(trace.stdout)?.[1]).toBe(run.traceHash.slice(0, 16));
  });

  it('check --loss runs with it and passes it on in the commands it prints', async () => {
    const r = await cli(['check', 'lossy-link', '--mode', 'stock', '--duration', '20s', '--loss', '0.4', '--json']);
    const doc = JSON.parse(r.stdout);
    const run = doc.runs[0];
    expect(run.settings.loss).toBe(0.4);
    expect(run.reproduce).toContain('--loss 0.4');
  });

  it('sweep --seed N is --seeds N, and --loss reaches every run', async () => {
    const r = await cli([
      'sweep',
      'lossy-link',
      '--seed',
      '3',
      '--loss',
      '0.1',
      '--duration',
      '5s',
      '--jobs',
      '1',
      '--mode',
      'fixed',
    ]);
    expect(r.code, r.stderr).not.toBe(2);
    const line = JSON.parse(r.stdout.split('\n')[0]);
    expect(line.seed).toBe(3);
    const run = JSON.parse(
      (
        await cli([
          'run',
          'lossy-link',
          '--mode',
          'fixed',
          '--seed',
          '3',
          '--loss',
          '0.1',
          '--duration',
          '5s',
          '--json',
        ])
      ).stdout,
    );
    expect(line.traceHash).toBe(run.traceHash);
    const both = await cli(['sweep', 'lossy-link', '--seed', '3', '--seeds', '1..2']);
    expect(both.code).toBe(2);
  });
});

describe('an unknown key', () => {
  it('names the nearest valid path, and the --config the user wrote', async () => {
    const r = await cli([
      'compare',
      'lossy-link',
      '--config',
      'r500:stock,ackResendIntervalMs=500',
      '--config',
      'f:fixed',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bcsim: --config r500:stock,ackResendIntervalMs=500: ackResendIntervalMs: unknown key "ackResendIntervalMs" (did you mean transport.ackResendIntervalMs?)\n',
    );
  });

  it.each([
    ['link.both.los=0.1', 'link.both.loss'],
    ['loss=0.1', 'link.both.loss'],
    ['traffic.phases[1].reliablePerSec=3', 'traffic.phases[1].reliablePerSecond'],
    ['transport.updatePeriodMS=5', 'transport.updatePeriodMs'],
    ['seeed=3', 'seed'],
  ])('--set %s suggests %s', async (set, near) => {
    const r = await cli(['run', 'lossy-link', '--set', set]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`\\(did you mean ${near.replace(/[.[\]]/g, '\\$&')}\\?\\)\\n$`));
  });

  it('suggests nothing when nothing is close', async () => {
    const r = await cli(['run', 'lossy-link', '--set', 'zzzzzz=1']);
    expect(r.stderr).toBe('bcsim: --set zzzzzz=1: zzzzzz: unknown key "zzzzzz"\n');
  });
});
