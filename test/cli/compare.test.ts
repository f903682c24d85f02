import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminalStyle } from '../../src/core/output/style.js';
import { REPORT_FILES } from '../../src/analysis/report/write.js';
import { cli } from '../support/cli.js';
import { withCpuMs } from '../support/cpu.js';

describe('bcsim compare', () => {
  it('--causes adds one column per other fragment-ACK cause; --json prints summary.json', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-compare-'));
    const r = await cli(['compare', 'fragment-ack-bug', '--duration', '30s', '--causes', '--json', '--out-dir', out]);
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

  it('--sensitivity runs its readings on the worker pool as they run in one thread, into an experiment folder', async () => {
    const one = mkdtempSync(join(tmpdir(), 'bcsim-compare-'));
    const two = mkdtempSync(join(tmpdir(), 'bcsim-compare-'));
    const args = ['compare', 'fragment-ack-bug', '--duration', '30s', '--sensitivity'];
    const [a, b] = await Promise.all([
      cli([...args, '--jobs', '1', '--out-dir', one]),
      cli([...args, '--jobs', '2', '--out-dir', two]),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    // A verdict longer than 120 columns wraps, continuation lines indented by two spaces.
    expect(a.stdout.replaceAll('\n  ', ' ')).toMatch(
      /rests on: .*under one of similar rank: .*"no-fragment-resend" \([^)]*fragment re-sends\)/,
    );
    expect(b.stdout.replaceAll(two, one)).toBe(a.stdout);
    for (const file of REPORT_FILES)
      expect(readFileSync(join(two, file), 'utf8'), file).toBe(readFileSync(join(one, file), 'utf8'));
    // Without --out it is an experiment: the committed reports/<scenario>/ stays as it is.
    const cwd = mkdtempSync(join(tmpdir(), 'bcsim-compare-'));
    const c = await cli(['compare', 'fragment-ack-bug', '--sensitivity'], { cwd });
    expect(c.code).toBe(0);
    expect(readdirSync(join(cwd, 'reports', 'experiments'))).toHaveLength(1);
    const scheme = await cli(['compare', 'rtype-deaths', '--sensitivity']);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(/^bcsim: --sensitivity: not available for rtype-deaths, a scheme scenario/);
  });

  it('prints a table of metrics by mode and where the report went', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-compare-'));
    const r = await cli(['compare', 'fragment-ack-bug', '--duration', '30s', '--out-dir', out]);
    expect(r.stdout).toMatch(/│ metric +│ stock +│ fixed +│/);
    expect(r.stdout).toMatch(/│ fragment retransmits +│ \d+ +│ 0 +│/);
    expect(r.stdout).toContain(`report written to ${out}/ (open ${join(out, 'report.html')})`);
    expect(r.stdout).not.toMatch(/\x1b\[/); // not a TTY: no colour
  });
});

// --out is checked before the simulation; the report folder is replaced whole.
describe('compare --out-dir', () => {
  // 168 hours of long-session would run for minutes: a refusal within a few seconds of CPU proves
  // nothing ran. CPU time, not wall time: a machine busy with other work stretches only the latter.
  const slow = ['compare', 'long-session', '--duration', '168h'];
  /** Generous: the first command in a process also loads (and transforms) its modules. */
  const NO_RUN_CPU_MS = 10_000;

  it("--out '' is refused at once with one line, and nothing is written", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bcsim-cwd-'));
    const { value: r, cpuMs } = await withCpuMs(() => cli([...slow, '--out-dir', ''], { cwd }));
    expect(cpuMs).toBeLessThan(NO_RUN_CPU_MS);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("bcsim: --out-dir '': an empty path names no folder; choose an empty or new folder\n");
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('--out-dir /proc/x exits 2 at once with one line (in a child: recursive mkdir would hang there)', () => {
    const program = new URL('../../dist/cli/program.js', import.meta.url).href;
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { runCli } from ${JSON.stringify(program)};
         let stderr = '';
         const io = { stdout: () => {}, stderr: (t) => { stderr += t; }, stdoutIsTTY: false, stderrIsTTY: false, env: {}, cwd: process.cwd() };
         const before = process.cpuUsage();
         const code = await runCli(${JSON.stringify([...slow, '--out-dir', '/proc/x'])}, io);
         const used = process.cpuUsage(before);
         process.stdout.write(JSON.stringify({ code, cpuMs: (used.user + used.system) / 1000, stderr }));`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(child.signal).toBeNull(); // not killed by the guard: it did not hang
    const r = JSON.parse(child.stdout) as { code: number; cpuMs: number; stderr: string };
    expect(r.code).toBe(2);
    expect(r.cpuMs).toBeLessThan(NO_RUN_CPU_MS);
    expect(r.stderr).toBe('bcsim: --out-dir /proc/x: cannot write (/proc is a kernel filesystem)\n');
  }, 90_000);

  it('a path under a regular file exits 2 at once with one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-file-'));
    writeFileSync(join(dir, 'file'), 'x');
    const { value: r, cpuMs } = await withCpuMs(() => cli([...slow, '--out-dir', 'file/report'], { cwd: dir }));
    expect(cpuMs).toBeLessThan(NO_RUN_CPU_MS);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`bcsim: --out-dir file/report: ${join(dir, 'file')} is a file, not a folder\n`);
  });

  it('refuses a folder holding other files before running, and leaves it untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-foreign-'));
    writeFileSync(join(dir, 'foo.txt'), 'mine');
    writeFileSync(join(dir, 'summary.json'), 'mine too');
    mkdirSync(join(dir, 'photos'));
    const { value: r, cpuMs } = await withCpuMs(() => cli([...slow, '--out-dir', dir]));
    expect(cpuMs).toBeLessThan(NO_RUN_CPU_MS);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bcsim: --out-dir ${dir}: holds files that are not a bcsim report (foo.txt, photos); choose an empty or new folder\n`,
    );
    expect(readdirSync(dir).sort()).toEqual(['foo.txt', 'photos', 'summary.json']);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe('mine too');
  });

  it('replaces an existing report folder whole, leaving nothing hidden beside it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'bcsim-replace-'));
    const out = join(parent, 'report');
    expect((await cli(['compare', 'fragment-ack-bug', '--duration', '5s', '--out-dir', out])).code).toBe(0);
    const first = readFileSync(join(out, 'summary.json'), 'utf8');
    expect((await cli(['compare', 'fragment-ack-bug', '--duration', '6s', '--out-dir', out])).code).toBe(0);
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).not.toBe(first);
    expect(readdirSync(out).sort()).toEqual([...REPORT_FILES].sort());
    expect(readdirSync(parent)).toEqual(['report']);
  });
});

describe('colour', () => {
  it('is on for a TTY, off for NO_COLOR or a pipe, forced by FORCE_COLOR', () => {
    expect(terminalStyle(true, {}).green('x')).toBe('\x1b[32mx\x1b[39m');
    expect(terminalStyle(true, { NO_COLOR: '1' }).green('x')).toBe('x');
    expect(terminalStyle(false, {}).green('x')).toBe('x');
    expect(terminalStyle(false, { FORCE_COLOR: '1' }).green('x')).toBe('\x1b[32mx\x1b[39m');
  });
});

describe('bcsim scenarios', () => {
  it('lists every built-in with its duration, its clients when more than one, and description', async () => {
    const r = await cli(['scenarios']);
    expect(r.code).toBe(0);
    const names = [
      'fragment-ack-bug (120s)',
      'long-session (4h)',
      'lobby-idle (30m)',
      'heavy-combat (30m)',
      'live (60s)',
      'valentines (34m, 3 clients)',
      'server-8 (1h, 8 clients)',
      'lossy-link (10m)',
      'partition (10m)',
    ];
    for (const name of names) expect(r.stdout).toContain(`${name}\n`);
    const json = JSON.parse((await cli(['scenarios', '--json'])).stdout);
    // The 9 BC built-ins; the scheme scenarios follow them, each with its `scheme`.
    expect(json.filter((b: { scheme?: string }) => b.scheme === undefined)).toHaveLength(9);
    expect(json.find((b: { name: string }) => b.name === 'server-8').clients).toBe(8);
  });
});
