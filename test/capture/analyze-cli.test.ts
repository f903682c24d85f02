// `bcsim analyze` and `bcsim decode --pcap` at the command line:
// bad files and flags get one line naming the file, the byte offset
// and the reason, and exit 2, never a stack trace; a file that breaks off
// still shows what came before it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { ack, bc, pcap, pcapng, reliable, udpPackets } from '../support/pcap-build.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-analyze-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TRAFFIC = udpPackets([
  { timeUs: 10_000, from: 'client', bytes: bc(0xff, [reliable(0, [0xff, 1], 0x03)]) },
  { timeUs: 20_000, from: 'server', bytes: bc(0x01, [reliable(0, [2], 0x03)]) },
  { timeUs: 30_000, from: 'client', bytes: bc(0x02, [ack(0, 2)]) },
]);
const good = join(dir, 'good.pcapng');
const text = join(dir, 'notes.txt');
const cut = join(dir, 'cut.pcap');

beforeAll(() => {
  writeFileSync(
    good,
    pcapng([{ interfaces: [{ linkType: 1 }], blocks: TRAFFIC.map((packet) => ({ kind: 'epb' as const, packet })) }]),
  );
  writeFileSync(text, 'not a capture\n');
  const whole = pcap(TRAFFIC);
  writeFileSync(cut, whole.subarray(0, whole.length - 3));
});

const oneLine = (stderr: string) => {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
};

describe('bcsim analyze', () => {
  it('prints the table: census, rule, one column per direction, the estimate and the verdict', async () => {
    const r = await cli(['analyze', good]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${good}: pcapng`);
    expect(r.stdout).toContain('packets: 3 packets, 3 BC datagrams (3 encrypted, 0 plaintext), 0 GameSpy');
    expect(r.stdout).toContain("ACK behaviour: read from each end's own wire");
    // One ACK key: too little to tell the client's behaviour, so no estimate rather than a guess.
    expect(r.stdout).toContain('C>S ACK behaviour: unknown (only 1 ACK key of messages the capture shows (5 needed);');
    expect(r.stdout).toContain('none: behaviour unknown');
    expect(r.stdout).toContain('connection 1: client 10.10.10.239:22102 (slot 2) · server 10.10.10.1:22101');
    expect(r.stdout).toMatch(/│\s+│ C>S\s+│ S>C\s+│/);
    expect(r.stdout).toContain("sender's ACK-outbox estimate peak / final");
    expect(r.stdout).toContain(
      'fragment-ACK signature (reproduce fragment-ack, lifetime 45 s): does not match (no fragmented message from the client)',
    );
  });

  it('--json is one stable object', async () => {
    const r = await cli(['analyze', good, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.schema).toBe('bcsim.analyze/2');
    expect(Object.keys(doc)).toEqual(['schema', 'source', 'packets', 'endS', 'ackRuleForced', 'connections']);
    expect(Object.keys(doc.connections[0])).toEqual([
      'index',
      'server',
      'client',
      'slot',
      'startSeen',
      'firstS',
      'lastS',
      'endedS',
      'removal',
      'clientToServer',
      'serverToClient',
      'ackOutbox',
      'fragmentAck',
      'checksumAnswers',
    ]);
    expect(Object.keys(doc.connections[0].ackOutbox.client)).toEqual([
      'side',
      'behaviour',
      'byRule',
      'peak',
      'peakS',
      'final',
      'deadZone',
      'defined',
      'samples',
      'deadZoneSamples',
    ]);
    expect(doc.source.file).toBe(good);
  });

  it('a file that is not a capture: one line with the file, offset and reason, exit 2', async () => {
    const r = await cli(['analyze', text]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`bcsim: ${text}: offset 0: not a pcap or pcapng file (starts with 6E 6F 74 20)\n`);
    const missing = await cli(['analyze', join(dir, 'nope.pcap')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`bcsim: ${join(dir, 'nope.pcap')}: offset 0: cannot open (no such file)\n`);
  });

  it('a file that breaks off: the analysis of what came before, then one line and exit 2', async () => {
    const r = await cli(['analyze', cut, '--json']);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout);
    expect(doc.source.complete).toBe(false);
    expect(doc.packets.bc).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toMatch(
      new RegExp(
        `^bcsim: ${cut.replace(/[.]/g, '\\.')}: offset \\d+: record of \\d+ bytes runs past the end of the file`,
      ),
    );
  });

  it('bad flags: exit 2, one line, before the file is read', async () => {
    for (const args of [
      ['analyze', good, '--mode', 'stock'],
      ['analyze', good, '--seed', '3'],
      ['analyze', good, '--ack-rule', 'sometimes'],
      ['analyze', good, '--against', 'no-such-scenario'],
      ['analyze', good, '--against', 'fragment-ack-bug', '--mode', 'broken'],
      ['analyze', good, '--against', 'fragment-ack-bug', '--duration', 'forever'],
      ['analyze'],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      oneLine(r.stderr);
    }
  });

  it('--help explains the figures, the estimate and the exit codes', async () => {
    const r = await cli(['analyze', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--against <scenario>');
    expect(r.stdout).toContain("Each end's ACK behaviour, read from its own wire: two-pass");
    expect(r.stdout).toContain('--ack-rule <rule>');
    expect(r.stdout).toContain('Exit 0; 2 with one line naming the file');
  });
});

describe('bcsim decode --pcap', () => {
  it('one trace line per BC datagram, then the census', async () => {
    const r = await cli(['decode', good]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^# .* · times in s from the whole second of the first packet/);
    expect(lines[1]).toMatch(/^\s+time\s+dir\s+event\s+messages \| bytes$/);
    expect(lines[2]).toMatch(
      /^\s+0\.010 {2}C>S {3}send {9}connect \(type 0x03 as captured\) reliable\+ordered seq=0 .* \| FF 01 03 /,
    );
    expect(lines[4]).toMatch(
      /^\s+0\.030 {2}C>S {3}send {9}ack seq=0 flags=0x02 \(low-type\) \[4 bytes\] \| 02 01 01 00 00 02$/,
    );
    expect(lines[5]).toBe(
      '# 3 BC datagrams shown · 3 packets, 3 BC datagrams (3 encrypted, 0 plaintext), 0 GameSpy (0 queries, 0 responses), 0 too short (< 2 bytes), 0 other UDP, 0 skipped · time 0 = 2002-02-28T00:00:00.000Z',
    );
  });

  it('--json: trace-style JSON lines with the packet, addresses and reading; the census on stderr', async () => {
    const r = await cli(['decode', good, '--json']);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatchObject({
      t: 0.02,
      event: 'send',
      client: 1,
      slot: 2,
      from: 'server',
      hex: '01010306C0000002',
      packet: 2,
      src: '10.10.10.1:22101',
      dst: '10.10.10.239:22102',
      reading: 'encrypted',
    });
    expect(lines[2]).toMatchObject({
      slot: 2,
      messages: [{ type: 1, name: 'ack', seq: 0, lowType: true, note: 'ack', transmission: 0 }],
    });
    expect(r.stderr).toMatch(/^# 3 BC datagrams shown · 3 packets/);
  });

  it('bad files and conflicting inputs: one line, exit 2', async () => {
    let r = await cli(['decode', text]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`bcsim: ${text}: offset 0: not a pcap or pcapng file (starts with 6E 6F 74 20)\n`);
    r = await cli(['decode', cut]);
    expect(r.code).toBe(2);
    expect(r.stdout.split('\n').filter((l) => l.includes(' send '))).toHaveLength(2);
    oneLine(r.stderr);
    // --json: the census goes to stderr, and on a refusal gives way to the refusal's one line.
    r = await cli(['decode', cut, '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    oneLine(r.stderr);
    expect(r.stderr).toMatch(/^bcsim: .*cut\.pcap: offset \d+: .* \(the datagrams before it are shown\)\n$/);
    r = await cli(['decode', good, '01', '02']);
    expect(r.code).toBe(2);
    r = await cli(['decode', good, '--plain']);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
  });
});
