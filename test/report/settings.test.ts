// Every summary and report records the effective settings: the preset, every
// switch and parameter after overrides, the --set list, and a command that
// reruns the figure from the file alone.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUILTIN_DIR, loadScenario, parseScenario } from '../../src/model/scenario/load.js';
import { runScenario, switchesFor } from '../../src/model/session/run.js';
import type { EffectiveSettings } from '../../src/model/session/settings.js';
import { DEFAULT_PARAMS, PRESETS } from '../../src/model/transport/switches.js';
import { cli } from '../support/cli.js';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Runs a rerun command through a real shell, `bcsim` being the built CLI; returns its summary. */
function rerun(command: string, cwd = process.cwd()): { traceHash: string; settings: EffectiveSettings } {
  expect(command).toMatch(/^bcsim run /);
  const script = `bcsim() { "${process.execPath}" "${MAIN}" "$@"; }\n${command}`;
  return JSON.parse(execFileSync('sh', ['-c', script], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 }));
}

/** The JSON of the fenced block after `marker` in report.md. */
function markdownJson(md: string, marker: string): unknown {
  const from = md.indexOf(marker);
  expect(from).toBeGreaterThan(0);
  const m = /^(`{3,})json\n([\s\S]*?)\n\1$/m.exec(md.slice(from));
  expect(m).not.toBeNull();
  return JSON.parse((m as RegExpExecArray)[2]);
}

function unescapeXml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

describe('runScenario records the effective settings', () => {
  const sets = [
    'link.both.latencyMs=40',
    'transport.updatePeriodMs.client=60',
    'mode={"preset":"stock","retransmit":{"baseMs":1500}}',
  ];
  const scenario = loadScenario('fragment-ack-bug', { sets });
  const { summary } = runScenario(scenario, {
    preset: 'stock',
    switches: { fragmentAckCause: 'partial-ack' },
    seed: 7,
    durationUs: 20_000_000,
  });
  const s = summary.settings;

  it('preset, every switch after overrides, and the switches that differ from the preset', () => {
    expect(s.preset).toBe('stock');
    expect(s.switches).toEqual(summary.switches);
    expect(Object.keys(s.switches).sort()).toEqual(Object.keys(PRESETS.stock).sort());
    expect(s.switches.fragmentAckCause).toBe('partial-ack');
    expect(s.switches.retransmit).toEqual({ ...PRESETS.stock.retransmit, baseMs: 1500 });
    expect(s.changedSwitches).toEqual({ fragmentAckCause: 'partial-ack', retransmit: { baseMs: 1500 } });
    expect(s.switchOverrides).toEqual({
      scenario: { retransmit: { baseMs: 1500 } },
      run: { fragmentAckCause: 'partial-ack' },
    });
  });

  it('every parameter, update periods per role included; the --set list, seed and duration', () => {
    expect(Object.keys(s.params).sort()).toEqual(
      [...Object.keys(DEFAULT_PARAMS), 'clientTickOffsetMs', 'updatePeriodMs'].sort(),
    );
    expect(s.params).toEqual(JSON.parse(JSON.stringify(scenario.params)));
    expect(s.params.updatePeriodMs.client).toBe(60);
    expect(s.params.updatePeriodMs.server).toBe(scenario.params.updatePeriodMs.server);
    expect(s.set).toEqual(sets);
    expect(s.seed).toBe(7);
    expect(s.durationSeconds).toBe(20);
    expect(s.scenario).toBe('fragment-ack-bug');
    expect(s.source).toBe('scenarios/fragment-ack-bug.json');
    expect(s.loss).toBeNull();
  });

  it('is plain JSON that survives a round trip, and does not alias the scenario', () => {
    expect(JSON.parse(JSON.stringify(summary)).settings).toEqual(s);
    expect(s.params).not.toBe(scenario.params);
  });

  it('its rerun command, run in a shell, reproduces the same traceHash', () => {
    expect(s.rerun).toContain(
      '--set \'mode={"preset":"stock","fragmentAckCause":"partial-ack","retransmit":{"baseMs":1500}}\'',
    );
    const again = rerun(s.rerun);
    expect(again.traceHash).toBe(summary.traceHash);
    expect(again.settings.switches).toEqual(s.switches);
    expect(again.settings.params).toEqual(s.params);
  });
});

describe('bcsim run', () => {
  it('--json carries settings (--loss included) and its rerun reproduces the traceHash', async () => {
    const r = await cli([
      'run',
      'lossy-link',
      '--mode',
      'fixed',
      '--loss',
      '0.1',
      '--seed',
      '3',
      '--duration',
      '20s',
      '--set',
      'link.both.latencyMs=25',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.settings.preset).toBe('fixed');
    expect(summary.settings.loss).toBe(0.1);
    expect(summary.settings.set).toEqual(['link.both.latencyMs=25']);
    expect(summary.settings.rerun).toBe(
      'bcsim run lossy-link --mode fixed --seed 3 --duration 20s --loss 0.1 --set link.both.latencyMs=25 --json',
    );
    expect(rerun(summary.settings.rerun).traceHash).toBe(summary.traceHash);
  });

  it('prints the settings and the rerun command under the table', async () => {
    const r = await cli(['run', 'fragment-ack-bug', '--duration', '20s', '--set', 'link.both.latencyMs=40']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^settings: preset stock · update periods \d+ \/ \d+ ms \(server \/ client\) · --set link\.both\.latencyMs=40$/m,
    );
    expect(r.stdout).toContain(
      '\nrerun: bcsim run fragment-ack-bug --mode stock --seed 1 --duration 20s --set link.both.latencyMs=40 --json\n',
    );
  });

  it('a scenario file is rerun by its path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-settings-'));
    copyFileSync(join(BUILTIN_DIR, 'lossy-link.json'), join(dir, 'mine.json'));
    const r = await cli(['run', 'mine.json', '--duration', '20s', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.settings.source).toBe('mine.json');
    expect(summary.settings.rerun).toMatch(/^bcsim run mine\.json /);
    expect(rerun(summary.settings.rerun, dir).traceHash).toBe(summary.traceHash);
  });
});

describe('compare writes the effective settings', () => {
  it('of both runs into summary.json, report.md, report.html and the terminal', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-settings-compare-'));
    const r = await cli([
      'compare',
      'fragment-ack-bug',
      '--duration',
      '30s',
      '--set',
      'link.both.latencyMs=30',
      '--out-dir',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '\nsettings: stock = preset stock; fixed = preset fixed; --set link.both.latencyMs=30\n',
    );

    const doc = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(doc.settings.rerun).toBe(
      'bcsim compare fragment-ack-bug --seed 1 --duration 30s --set link.both.latencyMs=30',
    );
    expect(doc.settings.set).toEqual(['link.both.latencyMs=30']);
    const all: Record<string, EffectiveSettings> = {};
    for (const mode of ['stock', 'fixed'] as const) {
      const s: EffectiveSettings = doc.runs[mode].settings;
      all[mode] = s;
      expect(s.preset).toBe(mode);
      expect(s.switches).toEqual(PRESETS[mode]);
      expect(s.switches).toEqual(doc.runs[mode].switches);
      expect(s.changedSwitches).toEqual({});
      expect(s.set).toEqual(['link.both.latencyMs=30']);
      expect(s.params.updatePeriodMs).toEqual({ server: expect.any(Number), client: expect.any(Number) });
      expect(s.durationSeconds).toBe(30);
      expect(s.rerun).toBe(
        `bcsim run fragment-ack-bug --mode ${mode} --seed 1 --duration 30s --set link.both.latencyMs=30 --json`,
      );
    }

    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain('## Settings');
    expect(md).toMatch(/^\| preset \| stock \| fixed \|$/m);
    expect(md).toMatch(/^\| --set \| link\.both\.latencyMs=30 \| link\.both\.latencyMs=30 \|$/m);
    expect(md).toContain(all.stock.rerun);
    expect(md).toContain(all.fixed.rerun);
    expect(markdownJson(md, '## Settings')).toEqual(all);

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    const section = html.slice(html.indexOf('<section class="settings">'));
    expect(section).toContain('<h2>Settings</h2>');
    expect(section).toContain('<tr><td>preset</td><td>stock</td><td>fixed</td></tr>');
    const details = /<details>\s*<summary>[^<]*<\/summary>\s*<pre><code>([\s\S]*?)<\/code><\/pre>\s*<\/details>/.exec(
      section,
    );
    expect(details).not.toBeNull();
    expect(JSON.parse(unescapeXml((details as RegExpExecArray)[1]))).toEqual(all);
    expect(html).not.toMatch(/<script/i);
  });

  it('--json stays one valid JSON document and carries the settings of every column', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-settings-compare-'));
    const r = await cli(['compare', 'fragment-ack-bug', '--duration', '20s', '--causes', '--json', '--out-dir', out]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.settings.rerun).toBe('bcsim compare fragment-ack-bug --seed 1 --duration 20s --causes');
    const partial = doc.runs['cause:partial-ack'];
    expect(partial.settings.changedSwitches).toEqual({ fragmentAckCause: 'partial-ack' });
    expect(partial.settings.switchOverrides.run).toEqual({ fragmentAckCause: 'partial-ack' });
    expect(rerun(partial.settings.rerun).traceHash).toBe(partial.traceHash);
  });
});

describe('bcsim check --json', () => {
  it("carries each run's settings", async () => {
    const r = await cli(['check', 'fragment-ack-bug', '--mode', 'stock', '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc.runs.length).toBeGreaterThan(0);
    for (const run of doc.runs) {
      expect(run.settings.preset).toBe(run.mode);
      expect(run.settings.seed).toBe(run.seed);
      expect(run.settings.switches).toEqual(PRESETS[run.mode as 'stock']);
    }
  });
});

describe('switch merging', () => {
  it('a run-level keepalive override is merged field by field with the scenario’s', () => {
    const s = parseScenario(
      JSON.stringify({ name: 'k', mode: { preset: 'stock', keepalive: { reliable: true } } }),
      'k.json',
    );
    const merged = switchesFor(s, 'stock', { keepalive: { path: 'first-send-queue' } });
    expect([merged.keepalive.reliable, merged.keepalive.path, merged.keepalive.message]).toEqual([
      true,
      'first-send-queue',
      'type-0x00',
    ]);
  });
});
