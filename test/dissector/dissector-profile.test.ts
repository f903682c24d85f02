// The colouring rules and I/O graphs shipped beside the dissector
// (dissector/profiles/bcsim/): every line parses in the format Wireshark reads, and
// every display filter in them compiles in tshark with dissector/bcsim.lua loaded,
// on a capture bcsim wrote. The graphs each count something in a stock run with loss.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { DISSECTOR, requireWireshark, tshark } from './tshark.js';
import type { TsharkOptions } from './tshark.js';

const PROFILE = join(DISSECTOR, '..', 'profiles', 'bcsim');

let work: string;
let options: TsharkOptions;
let capture: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'bcsim-dissector-profile-'));
  options = { home: join(work, 'home') };
  capture = join(work, 'stock.pcapng');
  // 5 % loss on both links, so that the capture has drops to colour too.
  const args = [
    'fragment-ack-bug',
    '--mode',
    'stock',
    '--seed',
    '1',
    '--duration',
    '60s',
    '--set',
    'link.both.loss=0.05',
  ];
  const r = await cli(['run', ...args, '--pcap', capture]);
  if (r.code !== 0) throw new Error(`bcsim run: ${r.stderr}`);
});

beforeEach(() => {
  requireWireshark();
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The lines of a UAT-style file that are not comments or blank. */
function entries(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

/** `@name@filter@[r,g,b][r,g,b]`, a disabled rule starting with `!` (Wireshark's colorfilters). */
const COLOR_RULE = /^!?@([^@]+)@([^@]+)@\[(\d+),(\d+),(\d+)\]\[(\d+),(\d+),(\d+)\]$/;

function colourRules(file: string): Array<{ name: string; filter: string }> {
  return entries(file).map((line) => {
    const m = COLOR_RULE.exec(line);
    if (!m) throw new Error(`${file}: not a colouring rule: ${line}`);
    for (const channel of m.slice(3)) expect(Number(channel), line).toBeLessThanOrEqual(65535);
    return { name: m[1], filter: m[2] };
  });
}

/** Frames of the capture the filter matches; tshark fails (and this throws) when it does not compile. */
function matches(filter: string): number {
  const out = tshark(capture, ['-Y', filter, '-T', 'fields', '-e', 'frame.number'], options);
  return out.split('\n').filter((line) => line.trim() !== '').length;
}

/** Wireshark 3.x-4.2's io_graphs: nine quoted fields a line. */
const STYLES = ['Line', 'Impulse', 'Bar', 'Stacked Bar', 'Dot', 'Square', 'Diamond'];
function ioGraphs(file: string): Array<{ name: string; filter: string }> {
  return entries(file).map((line) => {
    const fields = /^"([^"]*)"(?:,"([^"]*)"){8}$/.test(line) ? line.slice(1, -1).split('","') : [];
    expect(fields.length, `${file}: ${line}`).toBe(9);
    const [enabled, name, filter, color, style, yAxis, yField, sma, factor] = fields;
    expect(['TRUE', 'FALSE'], line).toContain(enabled);
    expect(color, line).toMatch(/^#[0-9a-f]{6}$/);
    expect(STYLES, line).toContain(style);
    expect([yAxis, yField, sma, factor], line).toEqual(['Packets', '', 'None', '1']);
    return { name, filter };
  });
}

describe('the Wireshark profile shipped with the dissector', () => {
  it('colouring rules: every line is a rule and every filter compiles with the dissector loaded', () => {
    const rules = colourRules(join(PROFILE, 'colorfilters'));
    expect(rules.length).toBeGreaterThanOrEqual(6);
    const counts = Object.fromEntries(rules.map((r) => [r.name, matches(r.filter)]));
    // The stock run has retransmits, ACK repeats, dead-zone ACKs and drops to colour.
    for (const name of ['BC dropped by bcsim', 'BC dead-zone ACK (pass 2)', 'BC ACK repeat', 'BC fragment retransmit'])
      expect(counts[name], name).toBeGreaterThan(0);
  });

  it('colouring rules load as a profile: tshark -C bcsim --color reads them without a complaint', () => {
    const home = join(work, 'profile-home');
    cpSync(PROFILE, join(home, '.config', 'wireshark', 'profiles', 'bcsim'), { recursive: true });
    const out = tshark(capture, ['-C', 'bcsim', '--color', '-c', '50'], { home });
    expect(out.split('\n').filter((line) => line.trim() !== '').length).toBe(50);
  });

  it('I/O graphs: nine quoted fields a line, and each graph counts something in a stock run', () => {
    const graphs = ioGraphs(join(PROFILE, 'io_graphs'));
    expect(graphs.map((g) => g.name)).toContain('Dead-zone ACKs (pass 2)');
    for (const g of graphs) expect(matches(g.filter), g.name).toBeGreaterThan(0);
  });

  it('a filter naming a field the dissector does not have fails the check', () => {
    expect(() => matches('bc.retransmission.kind == "ack"')).toThrow(/exited/);
  });
});
