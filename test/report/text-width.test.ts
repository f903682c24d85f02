// The default text of the widest reports keeps to 120 columns, and loses no cause name and no figure to do it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { FragmentAckReproduction } from '../../src/analysis/reproduce/index.js';
import { cli } from '../support/cli.js';

const widest = (text: string) =>
  Math.max(
    ...stripVTControlCharacters(text)
      .split('\n')
      .map((l) => [...l].length),
  );
/** The text with table borders and line breaks gone, so a figure wrapped across lines reads whole again. */
const flat = (text: string) =>
  stripVTControlCharacters(text)
    .split('\n')
    .map((l) => l.replace(/[│┌┐└┘┬┴─]/g, ' '))
    .join(' ')
    .replace(/\s+/g, ' ');
const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');

describe('bcsim reproduce fragment-ack, default text', async () => {
  const text = await cli(['reproduce', 'fragment-ack'], { env: { FORCE_COLOR: '1' } });
  const json = JSON.parse((await cli(['reproduce', 'fragment-ack', '--json'])).stdout) as FragmentAckReproduction;
  const wide = await cli(['reproduce', 'fragment-ack', '--wide']);

  it('fits 120 columns, where --wide does not, and still names every cause, figure and evidence title', async () => {
    expect(text.code).toBe(0);
    expect(widest(text.stdout)).toBeLessThanOrEqual(120);
    expect(widest(wide.stdout)).toBeGreaterThan(120);
    expect((await cli(['reproduce', 'ack-outbox', '--wide'])).stderr).toMatch(
      /--wide: only with reproduce fragment-ack/,
    );
    const body = flat(text.stdout);
    // Both runs' criteria; the evidence is weighed on the lossless run only.
    const cells = [
      ...[json.hypotheses, json.lossy.hypotheses].flatMap((hs) =>
        hs.flatMap((h) => Object.values(h.criteria).map((c) => c.measured)),
      ),
      ...json.hypotheses.flatMap((h) => h.evidence.map((e) => e.measured)),
    ];
    for (const h of json.hypotheses) expect(body).toContain(h.cause === 'none' ? 'none (no re-send)' : h.cause);
    // A cell wraps inside its column: its words appear in order, the other columns' words between them.
    for (const measured of cells) for (const word of words(measured)) expect(body).toContain(word);
    for (const e of json.evidence) expect(body).toContain(flat(`${e.title}: ${e.source}`));
    expect(body).toContain(flat(json.rankingRule));
  });
});

describe('bcsim compare fragment-ack-bug --causes, default text', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'bcsim-width-')), 'out');
  const r = await cli(['compare', 'fragment-ack-bug', '--causes', '--out-dir', out], { env: { FORCE_COLOR: '1' } });

  it('fits 120 columns and names every column in a legend under the table', () => {
    expect(r.code).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(120);
    const body = flat(r.stdout);
    const labels = ['stock', 'fixed', 'cause:none', 'cause:ack-format-mismatch', 'cause:partial-ack'];
    labels.push('cause:retransmit-reentry', 'cause:retransmit-all');
    labels.forEach((label, i) => expect(body).toContain(`${String.fromCharCode(65 + i)} ${label}`));
    expect(body).toContain('cause:ack-format-mismatch = preset stock + fragmentAckCause=ack-format-mismatch');
    expect(body).toContain('fragment retransmits 66 0 0 66 33 0 0');
  });

  it('--wide keeps the labels at the head of the table', async () => {
    const wide = await cli(['compare', 'fragment-ack-bug', '--causes', '--wide', '--out-dir', `${out}-wide`]);
    expect(wide.code).toBe(0);
    expect(widest(wide.stdout)).toBeGreaterThan(120);
    expect(wide.stdout).toMatch(/│ metric +│ stock +│ fixed +│ cause:none +│ cause:ack-format-mismatch/);
    const scheme = await cli(['compare', 'rtype-deaths', '--wide']);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(/^bcsim: --wide: not available for rtype-deaths/);
  });
});
