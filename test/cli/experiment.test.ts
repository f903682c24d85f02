// Compare any configurations, set switches directly, hear
// about switches that do nothing, and never overwrite a committed report.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/configs.js';
import { parseFailOn } from '../../src/analysis/check/fail-on.js';
import { cli } from '../support/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'bcsim-exp-'));

describe('compare --a/--b/--config', () => {
  it('runs one column per configuration and records each column’s settings in every output', async () => {
    const out = tmp();
    const r = await cli([
      'compare',
      'lossy-link',
      '--duration',
      '30s',
      '--a',
      'A:stock',
      '--b',
      'B:fixed,sendWindow=64,link.both.latencyMs=80',
      '--out-dir',
      out,
    ]);
    expect(r.stderr).toBe(
      'bcsim: warning: the phase plan is cut: the run ends at 30s inside traffic.phases[1] (combat, 9m40s), and traffic.phases[2] (disconnect) never runs\n',
    );
    expect(r.code).toBe(0);
    // The terminal names each column's exact settings, then a verdict per metric group.
    expect(r.stdout).toContain(
      'settings: A = preset stock; B = preset fixed + sendWindow=64 + --set link.both.latencyMs=80; no --set',
    );
    expect(r.stdout).toMatch(/^outbox: B peaks [\d.]+× lower \(\d+ vs \d+\); /m);
    expect(r.stdout).toMatch(/^delivery: A lost \d+, B lost 0 reliable messages/m);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(Object.keys(summary.runs)).toEqual(['A', 'B']);
    expect(summary.runs.B.settings.switches.sendWindow).toBe(64);
    expect(summary.runs.B.settings.set).toEqual(['mode.sendWindow=64', 'link.both.latencyMs=80']);
    expect(summary.runs.A.settings.set).toEqual([]);
    // The effective scenario of each column: B's link latency differs.
    expect(summary.scenarios.A.link.clientToServer.latency.baseMs).toBe(40);
    expect(summary.scenarios.B.link.clientToServer.latency.baseMs).toBe(80);
    expect(summary.settings.rerun).toBe(
      'bcsim compare lossy-link --seed 1 --duration 30s --config A:stock --config B:fixed,sendWindow=64,link.both.latencyMs=80',
    );
    for (const file of ['report.md', 'report.html']) {
      const text = readFileSync(join(out, file), 'utf8');
      expect(text).toContain('sendWindow');
      expect(text).toContain('link.both.latencyMs=80');
    }
  });

  it('--fail-on makes compare exit 1 and names the column and the figure', async () => {
    const out = tmp();
    const r = await cli([
      'compare',
      'lobby-idle',
      '--duration',
      '20s',
      '--set',
      'link.both.loss=0.1',
      '--fail-on',
      'delivery.reliableSent>0',
      '--fail-on',
      'fixed:leak',
      '--out-dir',
      out,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bcsim: --fail-on: stock: delivery\.reliableSent = \d+ \(> 0\)$/m);
    expect(r.stderr).toMatch(/^bcsim: --fail-on: fixed: delivery\.reliableSent = \d+ \(> 0\)$/m);
    const ok = await cli([
      'compare',
      'lossy-link',
      '--duration',
      '20s',
      '--fail-on',
      'fixed:delivery.reliableLost>0',
      '--out-dir',
      tmp(),
    ]);
    expect(ok.code).toBe(0);
  });

  it('bad configurations and conditions get one line and exit 2', async () => {
    for (const [args, message] of [
      [['--a', 'A:stock'], /a comparison needs at least two configurations/],
      [['--a', 'A:stock', '--b', 'A:fixed'], /the label "A" is used twice/],
      [['--a', 'A:stock', '--b', 'B:ackSendLimit=5'], /name a preset/],
      [['--a', 'A:stock', '--b', 'B:fixed', '--causes'], /--causes: not with --config/],
      [['--fail-on', 'lost>'], /--fail-on "lost>": expected "leak" or/],
      [['--fail-on', 'delivery.nothing>0'], /no summary field "nothing"/],
      [
        ['--a', 'A:stock', '--b', 'B:fixed,link.both.loss=2'],
        /^bcsim: --b B:fixed,link\.both\.loss=2: link\.both\.loss: expected a number between 0 and 1/,
      ],
    ] as const) {
      const r = await cli(['compare', 'lossy-link', '--duration', '5s', '--out-dir', tmp(), ...args]);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a --fail-on path or column that names nothing is refused before any run, writing nothing', async () => {
    for (const [condition, reason] of [
      ['delivery.nope>0', 'delivery.nope: no summary field "nope" under delivery (known: reliableSent, '],
      ['fixed:peers.server.ackOutbox.maximum>=1', 'peers.server.ackOutbox.maximum: no summary field "maximum"'],
      ['nope:leak', 'no column "nope" (columns: stock, fixed)'],
      ['B:delivery.reliableLost>0', 'no column "B" (columns: stock, fixed)'],
    ]) {
      const out = join(tmp(), 'report');
      const r = await cli(['compare', 'valentines', '--duration', '5s', '--fail-on', condition, '--out-dir', out]);
      expect(r.stderr.startsWith(`bcsim: --fail-on ${JSON.stringify(condition)}: ${reason}`), r.stderr).toBe(true);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
    }
  });

  it('parses items: presets with +switches, switches, scenario edits with commas inside JSON', () => {
    const source =
      'X:stock+ackRefresh=reset-count,keepalive.reliable=true,link.both.outages=[{"start":"5s","end":"6s"}]';
    const config = parseConfig('--config', source);
    expect(config).toMatchObject({ label: 'X', preset: 'stock', source });
    expect(config.sets.map((edit) => edit.set)).toEqual([
      'mode.ackRefresh=reset-count',
      'mode.keepalive.reliable=true',
      'link.both.outages=[{"start":"5s","end":"6s"}]',
    ]);
    // An error about any item names the --config as typed.
    expect(config.sets.every((edit) => edit.typed === `--config ${source}`)).toBe(true);
    expect(parseFailOn('B:peers.*.ackOutbox.max>=100')).toMatchObject({
      label: 'B',
      path: 'peers.*.ackOutbox.max',
      op: '>=',
      value: 100,
    });
  });
});

describe('switches are easy to set and never silently ignored', () => {
  const switchOf = async (args: string[]) =>
    JSON.parse((await cli(['run', 'lobby-idle', '--duration', '10s', '--json', ...args])).stdout).switches;

  it('--switch, --mode preset+switch and --set mode.switch all set it', async () => {
    expect((await switchOf(['--switch', 'ackRefresh=reset-count'])).ackRefresh).toBe('reset-count');
    expect((await switchOf(['--mode', 'fixed+ackSendLimit=5'])).ackSendLimit).toBe(5);
    expect((await switchOf(['--set', 'mode.ackSendLimit=7'])).ackSendLimit).toBe(7);
    expect((await switchOf(['--switch', 'keepalive.reliable=true'])).keepalive).toMatchObject({
      reliable: true,
      path: 'first-send-queue',
    }); // the path stays the preset's
  });

  it('a switch without effect under the chosen design is named, with what governs it', async () => {
    const r = await cli(['run', 'lobby-idle', '--duration', '10s', '--json', '--switch', 'ackSendLimit=5']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'bcsim: warning: ackSendLimit has no effect: ackOutbox is two-pass-gated, which sends an entry ackPassOneLimit times in pass 1 and frees it at ackFreeAtCount (transport parameters)\n',
    );
    expect(JSON.parse(r.stdout).settings.warnings).toHaveLength(1);
    const fixed = await cli([
      'run',
      'lobby-idle',
      '--duration',
      '10s',
      '--json',
      '--mode',
      'fixed',
      '--set',
      'transport.ackFreeAtCount=12',
      '--switch',
      'retransmit.stepMs=500',
    ]);
    expect(fixed.stderr.split('\n').filter(Boolean)).toEqual([
      'bcsim: warning: transport.ackFreeAtCount has no effect: ackOutbox is single-pass-bounded, which frees an entry after ackSendLimit sends',
      'bcsim: warning: retransmit.stepMs has no effect: retransmit.backoff is fixed (only linear adds a step)',
    ]);
    // compare warns per column.
    const c = await cli([
      'compare',
      'lobby-idle',
      '--duration',
      '10s',
      '--switch',
      'ackSendLimit=5',
      '--out-dir',
      tmp(),
    ]);
    expect(c.stderr).toMatch(/^bcsim: warning \(stock\): ackSendLimit has no effect/m);
    expect(c.stderr).not.toMatch(/warning \(fixed\)/);
  });

  it('an unknown switch, or a parameter given as a switch, is refused with a pointer', async () => {
    const r = await cli(['run', 'lobby-idle', '--switch', 'ackFreeAtCount=12']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bcsim: --switch ackFreeAtCount=12: unknown switch "ackFreeAtCount"; ackFreeAtCount is a transport parameter: --set transport\.ackFreeAtCount=…/,
    );
    const m = await cli(['run', 'lobby-idle', '--mode', 'fixed+nope=1']);
    expect(m.stderr).toMatch(/^bcsim: --mode fixed\+nope=1: unknown switch "nope"/);
    expect(m.code).toBe(2);
  });

  it('a bad switch value names the flag and the text the user typed, not the edit it became', async () => {
    const reason = 'expected a whole number of sends >= 1, got "banana"';
    const cases: Array<[string[], string]> = [
      [['run', 'lobby-idle', '--switch', 'ackSendLimit=banana'], `--switch ackSendLimit=banana: ${reason}`],
      [['trace', 'lobby-idle', '--switch', 'ackSendLimit=banana'], `--switch ackSendLimit=banana: ${reason}`],
      [['check', 'lobby-idle', '--switch', 'ackSendLimit=banana'], `--switch ackSendLimit=banana: ${reason}`],
      [['compare', 'lobby-idle', '--switch', 'ackSendLimit=banana'], `--switch ackSendLimit=banana: ${reason}`],
      [['sweep', 'lobby-idle', '--switch', 'ackSendLimit=banana'], `--switch ackSendLimit=banana: ${reason}`],
      [
        ['run', 'lobby-idle', '--mode', 'stock+ackSendLimit=banana'],
        `--mode stock+ackSendLimit=banana: ackSendLimit: ${reason}`,
      ],
      [
        ['compare', 'lobby-idle', '--config', 'A:stock', '--config', 'B:fixed+ackSendLimit=banana'],
        `--config B:fixed+ackSendLimit=banana: ackSendLimit: ${reason}`,
      ],
      [
        ['compare', 'lobby-idle', '--config', 'A:stock', '--config', 'B:fixed,ackSendLimit=banana'],
        `--config B:fixed,ackSendLimit=banana: ackSendLimit: ${reason}`,
      ],
    ];
    for (const [args, line] of cases) {
      const r = await cli(args);
      expect(r.stderr, args.join(' ')).toBe(`bcsim: ${line}\n`);
      expect(r.code).toBe(2);
    }
  });
});

describe('committed reports are never overwritten by an experiment', () => {
  it('any override sends the report to reports/experiments/, not reports/<scenario>/', async () => {
    const cwd = tmp();
    const r = await cli(['compare', 'lobby-idle', '--duration', '10s', '--seed', '3'], { cwd });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'reports', 'lobby-idle'))).toBe(false);
    const [dir] = readdirSync(join(cwd, 'reports', 'experiments'));
    expect(dir).toMatch(/^lobby-idle-[0-9a-f]{8}$/);
    expect(r.stdout).toContain(`report written to reports/experiments/${dir}/`);
    // A different experiment gets a different folder; the same one, the same folder.
    await cli(['compare', 'lobby-idle', '--duration', '10s', '--seed', '4'], { cwd });
    await cli(['compare', 'lobby-idle', '--duration', '10s', '--seed', '3'], { cwd });
    expect(readdirSync(join(cwd, 'reports', 'experiments'))).toHaveLength(2);
  });

  it('writes into reports/<scenario>/ when asked explicitly with --out', async () => {
    const cwd = tmp();
    mkdirSync(join(cwd, 'reports')); // as in a clone: a named --out's parent must exist
    const r = await cli(['compare', 'lobby-idle', '--duration', '10s', '--out-dir', 'reports/lobby-idle'], { cwd });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, 'reports', 'lobby-idle', 'summary.json'))).toBe(true);
  });
});
