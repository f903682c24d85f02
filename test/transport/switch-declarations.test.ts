// Every transport switch is declared once (switch-declarations.ts); the scenario
// schema, `--switch`, the --help text and the table of docs/switches.md are read off
// that declaration. These checks hold each of them to every declared switch and value.
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { SWITCHES_HELP } from '../../src/cli/help-texts.js';
import { switchSets } from '../../src/cli/switch-flags.js';
import { parseScenario } from '../../src/model/scenario/index.js';
import { SWITCHES } from '../../src/model/transport/switch-declarations.js';
import type { SwitchDeclaration } from '../../src/model/transport/switch-declarations.js';
import { DECLARED_SWITCHES, switchTable, withSwitchTable } from '../../src/model/transport/switch-text.js';
import { DEFAULT_PARAMS, PRESETS, PRESET_NAMES } from '../../src/model/transport/switches.js';
import type { TransportSwitches } from '../../src/model/transport/switches.js';

const SCENARIO = '{ "name": "switches" }';

/** The switch set as `--set mode.<name>=<value>` (what --switch becomes): the error, or null if accepted. */
function refusal(name: string, value: unknown): string | null {
  try {
    const set = `mode.${name}=${JSON.stringify(value)}`;
    const scenario = parseScenario(SCENARIO, 'switches.json', [set]);
    const [group, field] = name.split('.');
    const got = (scenario.switchOverrides as Record<string, Record<string, unknown>>)[group];
    expect(field === undefined ? got : got[field]).toEqual(value);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The values a declaration accepts, and values it must refuse with the message it gives. */
function cases(d: SwitchDeclaration): { accepted: unknown[]; refused: Array<[unknown, string, string?]> } {
  switch (d.kind) {
    case 'choice':
      return { accepted: [...d.values], refused: [['not-a-value', `expected one of ${d.values.join(', ')}`]] };
    case 'flag':
      return { accepted: [true, false], refused: [['yes', 'expected true or false']] };
    case 'count':
      return {
        accepted: [1, d.max],
        refused: [
          [0, `expected a whole number of ${d.unit} >= 1`],
          [1.5, `expected a whole number of ${d.unit} >= 1`],
          [d.max + 1, `expected at most ${d.max.toLocaleString('en-US')} ${d.unit}`],
        ],
      };
    case 'countOrNull':
      return {
        accepted: [1, d.max, null],
        refused: [
          [
            'banana',
            `expected a whole number of ${d.unit} 1..${d.max.toLocaleString('en-US')}, or null for ${d.nullMeans}`,
          ],
          [d.max + 1, `expected at most ${d.max.toLocaleString('en-US')} ${d.unit}`],
        ],
      };
    case 'millis':
      return {
        accepted: [d.zero ? 0 : 0.5, d.max],
        refused: [
          [d.zero ? -1 : 0, `expected a number of milliseconds ${d.zero ? '>= 0' : '> 0'}`],
          [d.max + 1, `expected at most ${d.max.toLocaleString('en-US')} milliseconds`],
        ],
      };
    case 'subset':
      return {
        accepted: [[], [...d.values], ...d.values.map((v) => [v])],
        refused: [
          [[d.values[0], d.values[0]], `expected each of ${d.values.join(', ')} at most once`],
          [['not-a-value'], `expected one of ${d.values.join(', ')}`, '[0]'],
        ],
      };
  }
}

describe('the switch declarations', () => {
  it('declare both presets, and the presets are their defaults', () => {
    expect(PRESET_NAMES).toEqual(['stock', 'fixed']);
    for (const { name, declaration } of DECLARED_SWITCHES) {
      const [group, field] = name.split('.');
      for (const preset of PRESET_NAMES) {
        const value = (PRESETS[preset] as unknown as Record<string, Record<string, unknown>>)[group];
        expect(field === undefined ? value : value[field], `${preset}.${name}`).toEqual(declaration[preset]);
      }
    }
    expect(Object.keys(PRESETS.stock)).toEqual(Object.keys(SWITCHES));
  });

  it('give a meaning to each switch, and name only real parameters and sources', () => {
    const sources = readFileSync('docs/sources.md', 'utf8');
    for (const { name, declaration } of DECLARED_SWITCHES) {
      expect(declaration.meaning, name).toMatch(/^\S.{10,}$/);
      for (const param of declaration.params) expect(Object.keys(DEFAULT_PARAMS), name).toContain(param);
      if (declaration.source !== null)
        expect(sources, name).toMatch(new RegExp(`^- \\*\\*${declaration.source}\\. `, 'm'));
    }
  });

  it('give the transport its types', () => {
    expectTypeOf<TransportSwitches['ackOutbox']>().toEqualTypeOf<'two-pass-gated' | 'single-pass-bounded'>();
    expectTypeOf<TransportSwitches['sendWindow']>().toEqualTypeOf<number | null>();
    expectTypeOf<TransportSwitches['keepalive']['reliable']>().toEqualTypeOf<boolean>();
    expectTypeOf<TransportSwitches['gateOpeners']>().toEqualTypeOf<
      readonly ('pass-one' | 'retransmits' | 'first-sends')[]
    >();
  });
});

describe('the scenario schema takes every declared switch', () => {
  for (const { name, declaration } of DECLARED_SWITCHES) {
    it(`${name}: accepts every declared value and refuses others with the declared message`, () => {
      const { accepted, refused } = cases(declaration);
      for (const value of accepted) expect(refusal(name, value), JSON.stringify(value)).toBeNull();
      for (const [value, message, at = ''] of refused)
        expect(refusal(name, value)).toContain(`mode.${name}${at}: ${message}`);
    });
  }

  it('--switch takes every declared switch and refuses an undeclared one', () => {
    for (const { name } of DECLARED_SWITCHES) {
      expect(switchSets([`${name}=x`])[0].set).toBe(`mode.${name}=x`);
    }
    expect(() => switchSets(['nope=1'])).toThrow(/^--switch nope=1: unknown switch "nope" \(switches: ackOutbox, /);
    expect(() => switchSets(['peerTimeoutMs=1'])).toThrow(/peerTimeoutMs is a transport parameter/);
  });
});

describe('the words about switches', () => {
  it('--help lists every switch with every value and its defaults', () => {
    const lines = SWITCHES_HELP.split('\n');
    let previous = -1;
    for (const { name, declaration } of DECLARED_SWITCHES) {
      const start = lines.findIndex((line) => line.startsWith(`  ${name} `));
      expect(start, name).toBeGreaterThan(previous);
      previous = start;
      let end = start + 1;
      while (lines[end]?.startsWith('      ')) end++;
      const entry = lines.slice(start, end).join('');
      const values = 'values' in declaration ? declaration.values : declaration.kind === 'flag' ? [true, false] : [];
      for (const value of values) expect(entry, name).toContain(String(value));
      const stock = JSON.stringify(declaration.stock).replaceAll('"', '');
      expect(entry.replaceAll('"', ''), name).toContain(stock);
    }
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(118);
  });

  it('docs/switches.md has the table of the declarations', () => {
    const page = readFileSync('docs/switches.md', 'utf8');
    // Fix with `npm run docs`.
    expect(withSwitchTable(page)).toBe(page);
    const table = switchTable();
    for (const { name, declaration } of DECLARED_SWITCHES) {
      const row = table.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      if ('values' in declaration) for (const value of declaration.values) expect(row).toContain(`\`${value}\``);
    }
  });

  it('a table that differs from the declarations is caught', () => {
    const page = readFileSync('docs/switches.md', 'utf8');
    const stale = page.replace('| `bootPayload` |', '| `bootPayloadOld` |');
    expect(stale).not.toBe(page);
    expect(withSwitchTable(stale)).not.toBe(stale);
    expect(withSwitchTable('no markers here')).toBeNull();
  });
});
