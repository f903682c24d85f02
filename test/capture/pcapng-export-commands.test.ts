// `--pcap FILE` on trace and compare: the same packets as run, whatever trace prints or
// whoever reads its stdout, and one file per compare column. tshark is required.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';
import { cli, withoutPlanCut } from '../support/cli.js';
import { fields, packets, removeTemps, runWithPcap, temp, tshark, type Packet } from './pcapng-export-support.js';

afterAll(removeTemps);

describe('bcsim trace --pcap and compare --pcap', () => {
  it('trace writes the same packets as run, whatever the printed window', async () => {
    const dir = temp('trace');
    await runWithPcap(['fragment-ack-bug', '--duration', '30s'], join(dir, 'run.pcapng'));
    const r = await cli([
      'trace',
      'fragment-ack-bug',
      '--until',
      '30s',
      '--from',
      '20s',
      '--filter',
      'fragment',
      '--pcap',
      join(dir, 'trace.pcapng'),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('RETRANSMIT');
    const strip = (ps: Packet[]) => ps.map((p) => [p.timestampUs, p.frame.toString('hex'), p.comment]);
    expect(strip(packets(join(dir, 'trace.pcapng')))).toEqual(strip(packets(join(dir, 'run.pcapng'))));
  });

  it('trace --pcap finishes the capture when the reader of stdout goes away', async () => {
    const dir = temp('closed');
    const { datagrams } = await runWithPcap(['fragment-ack-bug'], join(dir, 'run.pcapng'));
    let writes = 0;
    const io: CliIO = {
      stdout: () => {
        writes++;
      },
      stderr: () => {},
      stdoutIsTTY: false,
      stderrIsTTY: false,
      env: {},
      cwd: dir,
      stdoutClosed: () => writes > 0, // gone after the first write
    };
    expect(await runCli(['trace', 'fragment-ack-bug', '--pcap', 'trace.pcapng'], io)).toBe(0);
    expect(writes).toBe(1);
    expect(packets(join(dir, 'trace.pcapng'))).toHaveLength(datagrams);
  });

  it('compare writes one file per column, the label before the extension', async () => {
    const dir = temp('compare');
    const r = await cli([
      'compare',
      'fragment-ack-bug',
      '--duration',
      '30s',
      '--out-dir',
      join(dir, 'report'),
      '--json',
      '--pcap',
      join(dir, 'out.pcapng'),
    ]);
    expect(withoutPlanCut(r.stderr)).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['out.fixed.pcapng', 'out.stock.pcapng', 'report']);
    const doc = JSON.parse(r.stdout);
    for (const label of ['stock', 'fixed']) {
      const file = join(dir, `out.${label}.pcapng`);
      expect(fields(file, ['frame.number'])).toHaveLength(doc.runs[label].datagrams);
      expect(tshark(['-r', file, '-T', 'fields', '-e', 'frame.comment']).includes('[RETRANSMIT #')).toBe(
        label === 'stock',
      );
    }
    // The stock column is the stock run: the same packets as `run --mode stock`.
    await runWithPcap(['fragment-ack-bug', '--duration', '30s', '--mode', 'stock'], join(dir, 'run.pcapng'));
    const strip = (ps: Packet[]) => ps.map((p) => [p.timestampUs, p.frame.toString('hex'), p.comment]);
    expect(strip(packets(join(dir, 'out.stock.pcapng')))).toEqual(strip(packets(join(dir, 'run.pcapng'))));
  });
});
