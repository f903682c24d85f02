// `--pcap FILE` refused before a run, and no file (and no leftover) when a run fails or
// is interrupted.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEMP_PREFIX } from '../../src/core/output/atomic-write.js';
import { cli } from '../support/cli.js';
import { withCpuMs } from '../support/cpu.js';
import { ROOT, removeTemps, temp } from './pcapng-export-support.js';

afterAll(removeTemps);

describe('refusals, failures and interruptions', () => {
  it.each([
    ['run', ['run', 'fragment-ack-bug']],
    ['trace', ['trace', 'fragment-ack-bug']],
    ['compare', ['compare', 'fragment-ack-bug']],
  ])(
    '%s: a missing folder, a folder, an unwritable place or a lone --pcap-plaintext exit 2 with one line, before running',
    async (_name, args) => {
      const dir = temp('bad');
      const cases: Array<[string[], RegExp]> = [
        [
          ['--pcap', join(dir, 'missing', 'x.pcapng')],
          /^bcsim: --pcap .*missing\/x\.pcapng: .*the folder .*missing does not exist\n$/,
        ],
        [['--pcap', dir], /^bcsim: --pcap .*: is a folder, not a file\n$/],
        [['--pcap', '/proc/x.pcapng'], /^bcsim: --pcap \/proc\/x\.pcapng: .*cannot write/],
        [['--pcap', '/dev/null'], /^bcsim: --pcap \/dev\/null: is not a regular file/],
        [['--pcap', ''], /^bcsim: --pcap '': .*empty path/],
        [['--pcap-plaintext'], /^bcsim: --pcap-plaintext: only with --pcap FILE\n$/],
      ];
      for (const [flags, message] of cases) {
        const out = args[0] === 'compare' ? ['--out-dir', join(dir, 'report')] : [];
        const { value: r, cpuMs } = await withCpuMs(() => cli([...args, ...out, ...flags]));
        expect(r.code, flags.join(' ')).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stdout).toBe('');
        // Refused before the run: little CPU (not wall time, which a busy machine stretches).
        expect(cpuMs).toBeLessThan(5000);
      }
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('compare refuses a capture inside its report folder, which it replaces whole', async () => {
    const dir = temp('inside');
    const r = await cli([
      'compare',
      'fragment-ack-bug',
      '--out-dir',
      join(dir, 'r'),
      '--pcap',
      join(dir, 'r', 'x.pcapng'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bcsim: --pcap .*: is inside the report folder .*, which is replaced whole; write the capture elsewhere\n$/,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a run that fails leaves no file and no temporary', async () => {
    const dir = temp('fail');
    const file = join(dir, 'x.pcapng');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ "name": "bad", "duration": "forever" }');
    for (const args of [
      ['run', 'no-such-scenario', '--pcap', file],
      ['run', bad, '--pcap', file],
      ['trace', bad, '--pcap', file],
      ['compare', bad, '--pcap', file, '--out-dir', join(dir, 'r')],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(readdirSync(dir)).toEqual(['bad.json']);
    // A run that stops with a limit error after it has captured thousands of datagrams.
    const sets = [
      'tickMs=1',
      'transport.datagramsPerUpdate=64',
      'transport.peerTimeoutMs=86400000',
      'link.both.latencyMs=3600000',
      'traffic.phases=[{"kind":"lull","stateUpdatesPerSecond":10000,"stateUpdateBytes":[400,400],"arrival":"periodic"}]',
    ];
    const r = await cli([
      'run',
      join(ROOT, 'test/scenarios/minimal.json'),
      ...sets.flatMap((x) => ['--set', x]),
      '--pcap',
      file,
    ]);
    expect(r.stderr).toMatch(/^bcsim: limit: simulator: more than 150,000 pending events/);
    expect(r.code).toBe(2);
    expect(readdirSync(dir)).toEqual(['bad.json']);
  });

  it('a run killed outright leaves no file at the target; the next capture there sweeps the temporary', async () => {
    const dir = temp('sigint');
    const file = join(dir, 'long.pcapng');
    const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'run', 'long-session', '--pcap', file], {
      stdio: 'ignore',
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      child.once('exit', (code, signal) => done([code, signal])),
    );
    // Wait until the capture is being written (its temporary has grown), then interrupt.
    const tempName = `${TEMP_PREFIX}${child.pid}-long.pcapng`;
    for (let i = 0; i < 600; i++) {
      const path = join(dir, tempName);
      if (existsSync(path) && statSync(path).size > 1 << 20) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(existsSync(join(dir, tempName))).toBe(true);
    // SIGKILL: no handler runs (Ctrl-C removes the temporary itself, pcapng-interrupt.test.ts).
    child.kill('SIGKILL');
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(dir, tempName))).toBe(true);
    // The next capture into the folder removes the dead run's temporary.
    const r = await cli(['run', 'fragment-ack-bug', '--duration', '5s', '--pcap', join(dir, 'next.pcapng')]);
    expect(r.code).toBe(0);
    const next = await cli(['run', 'fragment-ack-bug', '--duration', '5s', '--pcap', file]);
    expect(next.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['long.pcapng', 'next.pcapng']);
  }, 60_000);
});
