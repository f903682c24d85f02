// The closing lines of `reproduce fragment-ack` name causes, and one cause is
// called `none` (no fragment is ever re-sent): an empty list must never read as that cause.
import { describe, expect, it } from 'vitest';
import { terminalStyle } from '../../src/core/output/style.js';
import { renderFragmentAckReproduction } from '../../src/analysis/report/reproduce-table.js';
import type { FragmentAckReproduction } from '../../src/analysis/reproduce/index.js';
import { cli } from '../support/cli.js';

const plain = terminalStyle(false, {});

describe('reproduce fragment-ack: the lines after the tables', () => {
  it('say in words when no cause is confused with the stock one, never "none."', async () => {
    const r = await cli(['reproduce', 'fragment-ack']);
    expect(r.code).toBe(0);
    const tail = r.stdout.trimEnd().split('\n').slice(-2);
    for (const line of tail) expect(line).not.toMatch(/: none\.?$/);
    expect(tail.join('\n')).toMatch(/no other cause gives the same pattern as matcher-rejects-fragments/);
    // The cause `none` is named as the table names it.
    expect(tail[0]).toContain('none (no re-send)');
  });

  it('list the causes that cannot be told apart, when there are any', async () => {
    const json = JSON.parse((await cli(['reproduce', 'fragment-ack', '--json'])).stdout) as FragmentAckReproduction;
    const confused = {
      ...json,
      lossy: { ...json.lossy, distinguishable: [], indistinguishable: ['none', 'partial-ack'] },
    } as FragmentAckReproduction;
    const tail = renderFragmentAckReproduction(confused, plain).trimEnd().split('\n').slice(-2);
    expect(tail[0]).toMatch(/no other cause can be told apart from matcher-rejects-fragments/);
    expect(tail[1]).toMatch(/cannot be told apart from matcher-rejects-fragments: none \(no re-send\), partial-ack\.$/);
  });
});
