import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeChalk } from '../../src/report/style.js';
import { cli } from '../support/cli.js';

describe('bcsim compare', () => {
  it('--causes adds one column per other fragment-ACK cause; --json prints summary.json', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-compare-'));
    const r = await cli(['compare', 'fragment-ack-bug', '--duration', '30s', '--causes', '--json', '--out', out]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc.runs)).toEqual([
      'stock',
      'fixed',
      'cause:none',
      'cause:ack-format-mismatch',
      'cause:partial-ack',
      'cause:retransmit-reentry',
      'cause:retransmit-all',
    ]);
    expect(doc.runs['cause:ack-format-mismatch'].switches.fragmentAckCause).toBe('ack-format-mismatch');
    expect(doc.runs['cause:none'].switches.ackOutbox).toBe('two-pass-gated');
    expect(readdirSync(out).sort()).toEqual(['report.html', 'report.md', 'summary.json', 'timeseries.csv']);
  });

  it('prints a table of metrics by mode and where the report went', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-compare-'));
    const r = await cli(['compare', 'fragment-ack-bug', '--duration', '30s', '--out', out]);
    expect(r.stdout).toMatch(/│ metric +│ stock +│ fixed +│/);
    expect(r.stdout).toMatch(/│ fragment retransmits +│ \d+ +│ 0 +│/);
    expect(r.stdout).toContain(`report written to ${out}/ (open ${join(out, 'report.html')})`);
    expect(r.stdout).not.toMatch(/\x1b\[/); // not a TTY: no colour
  });
});

describe('colour', () => {
  it('is on for a TTY, off for NO_COLOR or a pipe, forced by FORCE_COLOR', () => {
    expect(makeChalk(true, {}).green('x')).toBe('\x1b[32mx\x1b[39m');
    expect(makeChalk(true, { NO_COLOR: '1' }).green('x')).toBe('x');
    expect(makeChalk(false, {}).green('x')).toBe('x');
    expect(makeChalk(false, { FORCE_COLOR: '1' }).green('x')).toBe('\x1b[32mx\x1b[39m');
  });
});

describe('bcsim scenarios', () => {
  it('lists every built-in with its duration and description', async () => {
    const r = await cli(['scenarios']);
    expect(r.code).toBe(0);
    for (const name of ['fragment-ack-bug (120s)', 'long-session (4h)', 'lobby-idle (30m)', 'heavy-combat (30m)', 'valentines (34m)', 'lossy-link (10m)', 'partition (10m)']) {
      expect(r.stdout).toContain(name);
    }
    const json = JSON.parse((await cli(['scenarios', '--json'])).stdout);
    expect(json).toHaveLength(7);
  });
});
