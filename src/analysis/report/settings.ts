// The effective settings as the reports show them: a line or two on the
// terminal, a compact table plus the full JSON in report.md and report.html.
// The data itself is built once, in session/settings.ts.
import { formatDuration, usToSeconds, secondsToUs } from '../../core/engine/index.js';
import { changedSwitchList, scenarioRef, shellQuote } from '../../model/session/index.js';
import type { EffectiveSettings } from '../../model/session/index.js';
import type { Comparison, ModeSpec } from './compare.js';
import { STOCK_AND_FIXED, modesWithCauses } from './compare.js';
import { escapeXml } from '../../core/output/index.js';

/** What a comparison as a whole was run with: the top-level `settings` of summary.json. */
export interface ComparisonSettings {
  readonly scenario: string;
  readonly source: string;
  readonly seed: number;
  readonly durationSeconds: number;
  readonly set: readonly string[];
  /** The columns, each with its preset and run-level switch overrides. */
  readonly modes: ReadonlyArray<{ label: string; preset: string; switches: Record<string, unknown> }>;
  /** `bcsim compare …` that rewrites this report; null when the columns are not ones the CLI offers. */
  readonly rerun: string | null;
}

export function comparisonSettings(comparison: Comparison): ComparisonSettings {
  const { scenario } = comparison;
  return {
    scenario: scenario.name,
    source: scenario.source,
    seed: comparison.seed,
    durationSeconds: usToSeconds(comparison.durationUs),
    set: [...scenario.overrides],
    modes: comparison.runs.map((r) => ({
      label: r.spec.label,
      preset: r.spec.preset,
      switches: JSON.parse(JSON.stringify(r.spec.switches ?? {})),
    })),
    rerun: compareRerun(comparison),
  };
}

function compareRerun(comparison: Comparison): string | null {
  const specs = comparison.runs.map((r) => r.spec);
  const fromFiles = specs.every((m) => m.source !== undefined);
  const causes = !fromFiles && sameModes(specs, modesWithCauses());
  if (!fromFiles && !causes && !sameModes(specs, STOCK_AND_FIXED)) return null;
  const words = [
    'bcsim',
    'compare',
    scenarioRef(comparison.scenario),
    '--seed',
    String(comparison.seed),
    '--duration',
    formatDuration(comparison.durationUs),
  ];
  for (const s of comparison.scenario.overrides) words.push('--set', s);
  // Columns from config files are named by them; otherwise the built-in sets are a flag or the default.
  if (fromFiles) for (const m of specs) words.push('--config', m.source as string);
  else if (causes) words.push('--causes');
  return words.map(shellQuote).join(' ');
}

function sameModes(a: readonly ModeSpec[], b: readonly ModeSpec[]): boolean {
  const key = (m: ModeSpec) => JSON.stringify([m.label, m.preset, m.switches ?? {}]);
  return a.length === b.length && a.every((m, i) => key(m) === key(b[i]));
}

/** "preset stock" or "preset stock + fragmentAckCause=none, sendWindow=64". */
function presetAndSwitches(s: EffectiveSettings): string {
  const changed = changedSwitchList(s.changedSwitches);
  return changed.length === 0 ? `preset ${s.preset}` : `preset ${s.preset} + ${changed.join(', ')}`;
}

/** "--set a --set 'b c'", as typed on a command line; "no --set" when empty. */
function setList(set: readonly string[]): string {
  return set.length === 0 ? 'no --set' : set.map((s) => `--set ${shellQuote(s)}`).join(' ');
}

function periods(s: EffectiveSettings): string {
  const p = s.params.updatePeriodMs;
  return `${p.server} / ${p.client} ms`;
}

/** Two lines under `bcsim run`'s table. */
export function settingsLines(s: EffectiveSettings): string {
  const clients = s.clients > 1 ? ` · ${s.clients} clients` : '';
  return `settings: ${presetAndSwitches(s)}${clients} · update periods ${periods(s)} (server / client) · ${setList(s.set)}\nrerun: ${s.rerun}\n`;
}

/** One line under `bcsim compare`'s caption: each column's preset, switches and own --set edits, then the common --set list. */
export function compareSettingsLine(comparison: Comparison): string {
  const common = new Set(comparison.scenario.overrides);
  const modes = comparison.runs.map((r) => {
    const own = r.summary.settings.set.filter((s) => !common.has(s) && !s.startsWith('mode.'));
    return `${r.spec.label} = ${presetAndSwitches(r.summary.settings)}${own.length ? ` + ${setList(own)}` : ''}`;
  });
  return `settings: ${modes.join('; ')}; ${setList(comparison.scenario.overrides)}`;
}

/** The compact rows of the Settings section, one value per run. */
function rows(comparison: Comparison): Array<[string, string[]]> {
  const all = comparison.runs.map((r) => r.summary.settings);
  return [
    ['preset', all.map((s) => s.preset)],
    ['switches changed from the preset', all.map((s) => changedSwitchList(s.changedSwitches).join(', ') || 'none')],
    ['update period, server / client', all.map(periods)],
    ['client update offset', all.map((s) => `${s.params.clientTickOffsetMs} ms`)],
    ['seed', all.map((s) => String(s.seed))],
    ['duration', all.map((s) => formatDuration(secondsToUs(s.durationSeconds)))],
    ['--set', all.map((s) => (s.set.length === 0 ? 'none' : s.set.join('  ')))],
  ];
}

function fullJson(comparison: Comparison): string {
  return JSON.stringify(Object.fromEntries(comparison.runs.map((r) => [r.spec.label, r.summary.settings])), null, 2);
}

/** A fence longer than any run of backticks in the text. */
function fence(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export function settingsMarkdown(comparison: Comparison): string[] {
  const labels = comparison.runs.map((r) => r.spec.label);
  const cellText = (t: string) => t.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const out: string[] = ['## Settings', ''];
  out.push('The effective settings of each run; summary.json has them in full under `runs.<mode>.settings`.', '');
  out.push(`| setting | ${labels.map(cellText).join(' | ')} |`);
  out.push(`|---|${labels.map(() => '---').join('|')}|`);
  for (const [label, values] of rows(comparison)) out.push(`| ${label} | ${values.map(cellText).join(' | ')} |`);
  const rerun = compareRerun(comparison);
  const commands = [
    ...(rerun === null ? [] : ['# the whole report', rerun]),
    ...comparison.runs.flatMap((r) => [`# ${r.spec.label}: its summary, same trace hash`, r.summary.settings.rerun]),
  ].join('\n');
  out.push('', 'To rerun:', '', `${fence(commands)}sh`, commands, fence(commands), '');
  const json = fullJson(comparison);
  out.push('Full effective settings:', '', `${fence(json)}json`, json, fence(json), '');
  return out;
}

export function settingsHtml(comparison: Comparison): string {
  const head = comparison.runs.map((r) => `<th>${escapeXml(r.spec.label)}</th>`).join('');
  const body = rows(comparison)
    .map(
      ([label, values]) =>
        `<tr><td>${escapeXml(label)}</td>${values.map((v) => `<td>${escapeXml(v)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const rerun = compareRerun(comparison);
  const commands = [
    ...(rerun === null ? [] : ['# the whole report', rerun]),
    ...comparison.runs.flatMap((r) => [`# ${r.spec.label}: its summary, same trace hash`, r.summary.settings.rerun]),
  ].join('\n');
  return `<section class="settings">
<h2>Settings</h2>
<table>
<thead><tr><th>setting</th>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
<p>To rerun:</p>
<pre><code>${escapeXml(commands)}</code></pre>
<details>
<summary>Full effective settings (JSON; also in summary.json under runs.&lt;mode&gt;.settings)</summary>
<pre><code>${escapeXml(fullJson(comparison))}</code></pre>
</details>
</section>`;
}
