// Renamed flags keep their old spelling for one release (docs/commands.md#deprecated-spellings):
// the old one does what the new one does and says so in one line on stderr.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bindHostPortFlag } from '../../src/cli/live-flags.js';
import { cli, withoutPlanCut } from '../support/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'bcsim-deprecated-'));
const notice = (old: string, now: string) =>
  `bcsim: deprecated: ${old} is now ${now}; the old spelling works in this release only\n`;

describe('old spellings', () => {
  it('decode --pcap FILE reads the capture as decode FILE does', async () => {
    const dir = tmp();
    const pcap = join(dir, 'fa.pcapng');
    expect((await cli(['run', 'fragment-ack-bug', '--duration', '5s', '--pcap', pcap])).code).toBe(0);
    const now = await cli(['decode', pcap]);
    const old = await cli(['decode', '--pcap', pcap]);
    expect(now.code).toBe(0);
    expect(now.stderr).toBe('');
    expect(now.stdout).toMatch(/^# .*fa\.pcapng/);
    expect(old.stdout).toBe(now.stdout);
    expect(old.stderr).toBe(notice(`decode --pcap ${pcap}`, `decode ${pcap}`));
  });

  it('decode with a word that is neither hex nor a file says both', async () => {
    const r = await cli(['decode', 'capture.pcapng']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bcsim: decode capture.pcapng: neither hex (at character 2: "p" is not a hex digit) nor a capture file (no such file)\n',
    );
  });

  it('compare --out DIR writes where --out-dir DIR does; both at once is refused', async () => {
    const dir = tmp();
    const args = ['compare', 'fragment-ack-bug', '--duration', '5s'];
    const old = await cli([...args, '--out', join(dir, 'old')]);
    const now = await cli([...args, '--out-dir', join(dir, 'new')]);
    expect(old.code).toBe(0);
    expect(withoutPlanCut(now.stderr)).toBe('');
    expect(withoutPlanCut(old.stderr)).toBe(notice('compare --out', '--out-dir'));
    expect(readdirSync(join(dir, 'old')).sort()).toEqual(readdirSync(join(dir, 'new')).sort());
    const both = await cli([...args, '--out', join(dir, 'a'), '--out-dir', join(dir, 'b')]);
    expect(both.code).toBe(2);
    expect(withoutPlanCut(both.stderr)).toBe('bcsim: compare: give --out-dir, not also its old spelling --out\n');
  });

  it('soak --out is the old spelling of --out-dir', async () => {
    const both = await cli(['soak', '--server', '127.0.0.1:22101', '--out', 'a', '--out-dir', 'b']);
    expect(both.stderr).toBe('bcsim: soak: give --out-dir, not also its old spelling --out\n');
    const old = await cli(['soak', '--out', 'x']);
    expect(old.stderr).toBe(
      `${notice('soak --out', '--out-dir')}bcsim: --server: the server to soak is required (e.g. --server 127.0.0.1:22101)\n`,
    );
  });

  it('sweep --mode stock,fixed runs the grid --modes stock,fixed runs', async () => {
    const args = ['sweep', 'lossy-link', '--seeds', '1..2', '--duration', '5s', '--jobs', '1', '--json'];
    const now = await cli([...args, '--modes', 'stock,fixed']);
    const old = await cli([...args, '--mode', 'stock,fixed']);
    expect(now.code).toBe(0);
    expect(now.stdout.split('\n').filter(Boolean)).toHaveLength(4);
    expect(old.stdout).toBe(now.stdout);
    expect(withoutPlanCut(old.stderr)).toContain(notice('sweep --mode stock,fixed', '--modes stock,fixed'));
    const both = await cli([...args, '--mode', 'fixed', '--modes', 'stock,fixed']);
    expect(both.code).toBe(2);
  });
});

describe('one grammar for --mode', () => {
  it('sweep --mode takes switches as run does', async () => {
    const args = ['sweep', 'lossy-link', '--seeds', '1', '--duration', '5s', '--jobs', '1', '--json'];
    const plus = await cli([...args, '--mode', 'fixed+retransmit.baseMs=300']);
    const flag = await cli([...args, '--mode', 'fixed', '--switch', 'retransmit.baseMs=300']);
    const plain = await cli([...args, '--mode', 'fixed']);
    expect(plus.code).toBe(0);
    const hash = (text: string) => JSON.parse(text.split('\n')[0]).traceHash;
    expect(hash(plus.stdout)).toBe(hash(flag.stdout));
    expect(hash(plus.stdout)).not.toBe(hash(plain.stdout));
  });

  it('swarm --mode takes switches as run does', async () => {
    const plus = await cli(['swarm', '--runs', '1', '--mode', 'fixed+closePolicy=immediate', '--json']);
    const flag = await cli(['swarm', '--runs', '1', '--mode', 'fixed', '--switch', 'closePolicy=immediate', '--json']);
    expect(JSON.parse(plus.stdout).switches).toEqual(['closePolicy=immediate']);
    expect(JSON.parse(plus.stdout)).toEqual(JSON.parse(flag.stdout));
    const bad = await cli(['swarm', '--runs', '1', '--mode', 'fixd']);
    expect(bad.stderr).toBe(
      'bcsim: --mode: expected fixed or stock, optionally followed by +switch=value, got "fixd"\n',
    );
  });

  it('peer and soak take --bind HOST as HOST:0, as conform does', () => {
    expect(bindHostPortFlag('127.0.0.1')).toEqual({ host: '127.0.0.1', port: 0, family: 4 });
    expect(bindHostPortFlag('localhost')).toEqual({ host: '127.0.0.1', port: 0, family: 4 });
    expect(bindHostPortFlag('::1')).toEqual({ host: '::1', port: 0, family: 6 });
    expect(bindHostPortFlag('[::1]')).toEqual({ host: '::1', port: 0, family: 6 });
    expect(bindHostPortFlag('127.0.0.1:5000')).toEqual({ host: '127.0.0.1', port: 5000, family: 4 });
    expect(() => bindHostPortFlag('192.0.2.')).toThrow(/^--bind: "192\.0\.2\." is not host:port/);
  });
});
