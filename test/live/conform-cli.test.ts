// `bcsim conform`: bad input gets one line and exit 2; a server that never
// answers gets the first line and exit 1 with every case not exercised (never
// a pass); the report's text, JUnit and pcapng forms; the cases' seeded choices.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openCapture } from '../../src/core/pcap/index.js';
import { namedStream } from '../../src/core/engine/index.js';
import type { CaseResult, ConformReport } from '../../src/live/index.js';
import { CASE_IDS, conformJunitXml, renderConformText } from '../../src/live/index.js';
import { fragmentOrder } from '../../src/live/conform/cases/processing.js';
import { hostileGroups } from '../../src/live/conform/cases/robustness.js';
import { CampaignWire } from '../../src/live/conform/campaign-wire.js';
import type { ConformWireFigures } from '../../src/live/conform/campaign-wire.js';
import { cli } from '../support/cli.js';
import { bcsim, freeUdpPort } from '../support/live.js';

describe('bcsim conform: input', () => {
  it.each([
    [['conform'], /^bcsim: conform: --server HOST:PORT is required/],
    [['conform', '--server', 'nowhere'], /^bcsim: --server: "nowhere" is not host:port/],
    [
      ['conform', '--server', '127.0.0.1:22101', '--cases', 'retransmit,bogus'],
      /^bcsim: --cases: unknown case "bogus" \(one of duplicate-processing, /,
    ],
    [
      ['conform', '--server', '127.0.0.1:22101', '--parallel', '0'],
      /^bcsim: --parallel: expected a whole number of sessions 1\.\.64, got "0"/,
    ],
    [
      ['conform', '--server', '127.0.0.1:22101', '--peer-timeout', 'soon'],
      /^bcsim: --peer-timeout: expected a duration/,
    ],
    [
      ['conform', '--server', '127.0.0.1:22101', '--timeout-grace', '2s'],
      /^bcsim: --timeout-grace: expected 3s to 10m \(default 15s\), got "2s"/,
    ],
    [
      ['conform', '--server', '127.0.0.1:22101', '--timeout-grace', 'soon'],
      /^bcsim: --timeout-grace: expected a duration/,
    ],
    [
      ['conform', '--server', '10.1.2.3:22101'],
      /^bcsim: conform: --server 10\.1\.2\.3:22101 is not loopback; say which local address to use with --bind HOST/,
    ],
    [
      ['conform', '--server', '127.0.0.1:9', '--parallel', '2'],
      /^bcsim: --parallel 2: a case opens up to 3 sessions at once; give at least 3/,
    ],
    [
      ['conform', '--server', '127.0.0.1:9', '--bind', '127.0.0.1:5000'],
      /^bcsim: --bind 127\.0\.0\.1:5000: conform takes a host without a port \(each session binds a port of its own\); give --bind 127\.0\.0\.1\n$/,
    ],
    [
      ['conform', '--server', '127.0.0.1:9', '--bind', 'banana'],
      /^bcsim: --bind banana: "banana" is not an IP address \(give a numeric address or localhost\)\n$/,
    ],
    [
      ['conform', '--server', '127.0.0.1:9', '--bind', '::1'],
      /^bcsim: --bind ::1: an IPv6 address cannot reach the IPv4 --server 127\.0\.0\.1:9\n$/,
    ],
    [
      // A host, with or without "any port", is taken: the next flag's own check is what stops it.
      ['conform', '--server', '127.0.0.1:9', '--bind', '127.0.0.1:0', '--parallel', '2'],
      /^bcsim: --parallel 2: a case opens up to 3 sessions at once/,
    ],
    [
      ['conform', '--server', '127.0.0.1:9', '--bind', 'localhost', '--parallel', '2'],
      /^bcsim: --parallel 2: a case opens up to 3 sessions at once/,
    ],
    [
      ['conform', '--server', '127.0.0.1:9', '--bind', '10.99.99.99'],
      /^bcsim: --bind: cannot bind 10\.99\.99\.99:0: not an address of this machine/,
    ],
  ])('%j exits 2 with one line', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('--list names every case with its claim', async () => {
    const r = await cli(['conform', '--list']);
    expect(r.code).toBe(0);
    const ids = r.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]);
    expect(ids).toEqual([...CASE_IDS]);
  });
});

describe('bcsim conform: a server that never answers', () => {
  it('says so on the first line, exits 1, and runs nothing else: every case is not exercised', async () => {
    const port = await freeUdpPort();
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-conform-'));
    const junit = join(dir, 'conform.xml');
    const run = bcsim(['conform', '--server', `127.0.0.1:${port}`, '--junit', junit], 60_000);
    const out = await run.exited;
    expect(out.code).toBe(1);
    expect(out.stdout.split('\n')[0]).toBe(
      `bcsim conform: no answer from 127.0.0.1:${port} — is the server running and listening there?`,
    );
    const n = CASE_IDS.length;
    expect(out.stdout).toContain(`conform: 0 passed, 0 failed, ${n} not exercised (${n} cases)`);
    expect(out.stdout).not.toMatch(/^PASS/m);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain(`tests="${n}" failures="0" skipped="${n}"`);
    expect(xml.match(/<skipped message="not exercised: [^"]+"\/>/g)).toHaveLength(n);
  }, 60_000);
});

/** Every packet's comment, read back with bcsim's own capture reader; every record must be a packet. */
function captureComments(file: string): string[] {
  const opened = openCapture(file, { comments: true });
  if (!opened.ok) throw new Error(`${file}: ${opened.error.reason}`);
  const comments: string[] = [];
  for (let step = opened.reader.next(); step.kind !== 'end'; step = opened.reader.next()) {
    if (step.kind !== 'packet') throw new Error(`${file}: a ${step.kind} record`);
    comments.push(step.packet.comment ?? '');
  }
  return comments;
}

function result(id: string, status: CaseResult['status'], extra: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    title: `${id} claim`,
    status,
    summary: `${id} summary`,
    evidence: [],
    durationS: 1,
    repro: `npx bcsim conform --server 127.0.0.1:1 --cases ${id} --seed 1`,
    removedAfter: null,
    explainedBy: null,
    ...extra,
  };
}

function report(cases: CaseResult[], answered = true, wire: Partial<ConformWireFigures> = {}): ConformReport {
  const count = (s: CaseResult['status']) => cases.filter((c) => c.status === s).length;
  return {
    schema: 'bcsim.conform/1',
    server: '127.0.0.1:1',
    seed: 1,
    answered,
    wallSeconds: 3,
    sessions: 2,
    counts: { pass: count('pass'), fail: count('fail'), notExercised: count('not-exercised') },
    refusal: null,
    serverDeviations: { datagrams: 0, byCode: {} },
    wire: { ...new CampaignWire().figures(), ...wire },
    cases,
  };
}

describe('bcsim conform: the report', () => {
  const failing = result('retransmit', 'fail', {
    evidence: [
      { session: 'retransmit', timeS: 1.5, detail: 'never re-sent', hex: '01 01 32 06 80 01 00 20', from: 'server' },
    ],
  });
  const r = report([result('garbage', 'pass'), failing, result('removal', 'not-exercised')]);

  it('text: a line per case, evidence and the re-run command under a FAIL, the reason under a NOT EXERCISED', () => {
    const text = renderConformText(r);
    expect(text).toContain(
      "FAIL          retransmit  retransmit summary\n      t=1.500 s [retransmit] never re-sent\n        server's datagram: 01 01 32 06 80 01 00 20\n      re-run: npx bcsim conform",
    );
    expect(text).toMatch(/^NOT EXERCISED removal\s+removal summary$/m);
    expect(text.trim().split('\n').at(-1)).toBe('conform: 1 passed, 1 failed, 1 not exercised (3 cases)');
    expect(text).not.toContain('no answer');
  });

  it('JUnit: a failure with its evidence, a skip with its reason, a pass bare', () => {
    const xml = conformJunitXml(r);
    expect(xml).toContain('tests="3" failures="1" skipped="1"');
    expect(xml).toMatch(/name="garbage: garbage claim"><\/testcase>/);
    expect(xml).toMatch(
      /<failure message="retransmit summary">t=1\.500 s \[retransmit\] never re-sent\nserver's datagram: 01 01 32 06 80 01 00 20\nre-run: npx bcsim conform/,
    );
    expect(xml).toContain('<skipped message="not exercised: removal summary"/>');
    expect(xml).not.toContain('system-err');
  });

  it('JUnit with --require-exercised: a case not exercised fails in the words a required rule does', () => {
    const xml = conformJunitXml(r, true);
    expect(xml).toContain('tests="3" failures="2">');
    expect(xml).toContain('<failure message="not exercised, and required to be: removal summary"/>');
  });

  it('names unreadable datagrams, datagrams from elsewhere and a full log, in text and in the JUnit suite', () => {
    const noisy = report([result('garbage', 'pass')], true, {
      readable: 40,
      unreadable: { total: 7, bySource: [{ address: '127.0.0.1:1', count: 7, first: [] }], otherSources: 0 },
      foreign: 3,
      logBudgetBytes: 1000,
      notKept: 2,
      notKeptBytes: 2400,
    });
    const lines = [
      'unreadable datagrams from the server: 7 (7 from 127.0.0.1:1) (40 readable)',
      'datagrams from other addresses than the server: 3, not read',
      "the sessions' logs were full (1000 bytes): 2 datagrams not kept (2400 bytes); their cases are NOT EXERCISED",
    ];
    expect(renderConformText(noisy)).toContain(`${lines.join('\n')}\nconform: 1 passed`);
    expect(conformJunitXml(noisy)).toContain(`<system-err>${lines.join('\n')}</system-err>`);
  });
});

describe('bcsim conform: combining probes', () => {
  it('passes only when every required probe passed; an optional probe that checked nothing does not decide', async () => {
    const { combine, pass, fail, notExercised } = await import('../../src/live/conform/case-types.js');
    expect(combine([pass('a'), pass('b')]).status).toBe('pass');
    expect(combine([pass('a'), notExercised('b')]).status).toBe('not-exercised');
    expect(combine([pass('a'), notExercised('b')]).summary).toBe('a; b');
    expect(combine([notExercised('a'), fail('b', [])]).status).toBe('fail');
    expect(combine([pass('a')], [notExercised('b')]).status).toBe('pass');
    expect(combine([pass('a')], [fail('b', [])]).status).toBe('fail');
    expect(combine([notExercised('a')], [pass('b')]).status).toBe('not-exercised');
  });
});

describe('bcsim conform: seeded choices', () => {
  it('an out-of-order send is never the identity, and every order sends each fragment', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), fc.integer({ min: 0, max: 1000 }), (count, seed) => {
        const draw = namedStream(seed, 'test');
        const shuffled = fragmentOrder('out-of-order', count, () => draw.next()).first;
        expect(shuffled).not.toEqual([...shuffled].sort((a, b) => a - b));
        expect([...shuffled].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
        const twice = fragmentOrder('duplicated', count, () => draw.next()).first;
        expect(twice).toHaveLength(count + 1);
        expect(new Set(twice).size).toBe(count);
        const gap = fragmentOrder('missing-then-resent', count, () => draw.next());
        expect(gap.later).toHaveLength(1);
        expect(gap.later[0]).toBeGreaterThan(0);
        expect([...gap.first, ...gap.later].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
      }),
    );
  });

  it('the hostile datagrams are the same for a seed and differ for another, oversize ones included', () => {
    const sample = Uint8Array.of(3, 1, 0x00, 0x06, 0xc0, 0x01, 0x00, 0x02);
    const bytes = (seed: number) =>
      hostileGroups(3, sample, namedStream(seed, 'garbage')).flatMap((g) =>
        g.datagrams.map((d) => Buffer.from(d.bytes).toString('hex')),
      );
    expect(bytes(1)).toEqual(bytes(1));
    expect(bytes(1)).not.toEqual(bytes(2));
    const sizes = hostileGroups(3, sample, namedStream(1, 'garbage')).flatMap((g) =>
      g.datagrams.map((d) => d.bytes.length),
    );
    expect(Math.max(...sizes)).toBeGreaterThan(512);
    expect(sizes).toContain(0);
  });
});

describe('bcsim conform --pcap', () => {
  it('writes every session, ours commented, as a capture the reader opens', async () => {
    // A tiny server of its own: bcsim peer server, one case.
    const port = await freeUdpPort();
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-conform-pcap-'));
    const pcap = join(dir, 'conform.pcapng');
    const server = bcsim(
      [
        'peer',
        'server',
        '--listen',
        `127.0.0.1:${port}`,
        '--mode',
        'fixed',
        '--clients',
        '4',
        '--duration',
        '60s',
        '--set',
        'transport.updatePeriodMs.server=5',
      ],
      70_000,
    );
    await server.stderrSays('waiting for clients');
    const out = await bcsim(
      ['conform', '--server', `127.0.0.1:${port}`, '--cases', 'keepalive-echo', '--pcap', pcap],
      60_000,
    ).exited;
    server.child.kill('SIGINT');
    await server.exited;
    expect(out.code, out.stdout + out.stderr).toBe(0);
    const comments = captureComments(pcap);
    expect(comments.length).toBeGreaterThan(10);
    expect(comments.some((c) => c.includes('keepalive-echo [keepalive-echo] Connect'))).toBe(true);
    expect(comments.some((c) => c.includes('ChecksumResponse 0xFF'))).toBe(true);
  }, 90_000);
});

describe('files the documentation uses ship in the package', () => {
  it('scenarios/examples/rules.json is the rules.json of docs/live.md, and it loads', async () => {
    const { loadConformanceRules } = await import('../../src/live/index.js');
    const shipped = readFileSync('scenarios/examples/rules.json', 'utf8');
    const readme = readFileSync('docs/live.md', 'utf8');
    expect(readme).toContain('cp "$examples/rules.json" "$examples/lossy-rules.json" .');
    expect(readme).toContain(`\`\`\`json\n${shipped}\`\`\``);
    expect(loadConformanceRules('scenarios/examples/rules.json')).toHaveLength(6);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('scenarios');
  });
});

describe('conformPcap', () => {
  it("keeps every packet of a capture larger than the writer's 1 MiB buffer", async () => {
    const { conformPcap } = await import('../../src/live/index.js');
    const big = new Uint8Array(60_000).fill(7);
    const departures = Array.from({ length: 40 }, (_, i) => ({ timeMs: i, bytes: big, note: `raw: oversize #${i}` }));
    const client = { local: '127.0.0.2:40000', openedAtMs: 0, label: 'garbage', departures, arrivals: [] };
    const bytes = conformPcap([{ caseId: 'garbage', client: client as never }], 0, 1_800_000_000_000_000, {
      address: '127.0.0.1',
      port: 22101,
    });
    expect(bytes.length).toBeGreaterThan(2_000_000);
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-conform-big-'));
    const file = join(dir, 'big.pcapng');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, bytes);
    const comments = captureComments(file);
    expect(comments).toHaveLength(40);
    expect(comments[39]).toBe('garbage [garbage] raw: oversize #39');
  });
});
