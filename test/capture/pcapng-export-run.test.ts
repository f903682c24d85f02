// `bcsim run --pcap FILE`, end to end: tshark
// reads the files with no error, every datagram is one packet at its send time,
// hosts and ports as documented, payloads that decrypt to exactly the bytes the
// trace reports, comments with the trace's marks and the link's drops, byte-
// identical files from two runs, several clients. tshark is required: these tests
// never skip.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decrypt } from '../../src/core/codec/index.js';
import { CAPTURE_EPOCH_US } from '../../src/analysis/capture/capture-recorder.js';
import {
  FRAME_HEADER_BYTES,
  type TraceLine,
  epochText,
  expectTraceMarks,
  fields,
  hexOf,
  packets,
  removeTemps,
  runWithPcap,
  sends,
  temp,
  traceLines,
  tshark,
  usOf,
} from './pcapng-export-support.js';

afterAll(removeTemps);

describe('bcsim run --pcap', () => {
  const dir = temp('run');
  const file = join(dir, 'fa.pcapng');
  let datagrams = 0;
  let trace: TraceLine[] = [];

  it('writes a capture tshark reads without an error, one packet per datagram of the run', async () => {
    ({ datagrams } = await runWithPcap(['fragment-ack-bug', '--mode', 'stock'], file));
    expect(datagrams).toBeGreaterThan(100);
    const rows = fields(file, ['frame.number']);
    expect(rows).toHaveLength(datagrams);
    expect(readdirSync(dir)).toEqual(['fa.pcapng']); // no temporary left
    trace = sends(await traceLines(['fragment-ack-bug', '--mode', 'stock']));
    expect(trace).toHaveLength(datagrams);
  });

  it('puts the server at 10.10.10.1:22101 and the client at 10.10.10.239:22102, MACs 02:00:0a:0a:0a:xx, IPv4 checksums right', () => {
    const rows = fields(
      file,
      [
        'eth.src',
        'eth.dst',
        'ip.src',
        'udp.srcport',
        'ip.dst',
        'udp.dstport',
        'ip.ttl',
        'ip.checksum.status',
        'udp.length',
        'frame.len',
      ],
      ['-o', 'ip.check_checksum:TRUE'],
    );
    const server = ['02:00:0a:0a:0a:01', '10.10.10.1', '22101'];
    const client = ['02:00:0a:0a:0a:ef', '10.10.10.239', '22102'];
    rows.forEach((row, i) => {
      const [from, to] = trace[i].from === 'server' ? [server, client] : [client, server];
      const length = trace[i].hex.length / 2;
      expect(row).toEqual([
        from[0],
        to[0],
        from[1],
        from[2],
        to[1],
        to[2],
        '64',
        '1',
        String(8 + length),
        String(FRAME_HEADER_BYTES + length),
      ]);
    });
  });

  it('numbers IPv4 identification per sending host', () => {
    const ids = { server: 0, client: 0 };
    packets(file).forEach((p, i) => {
      const from = trace[i].from;
      expect(p.frame.readUInt16BE(18)).toBe(ids[from]++ & 0xffff);
    });
  });

  it('stamps each packet with its simulated send time after 2002-02-28T00:00:00Z', () => {
    const rows = fields(file, ['frame.time_epoch']);
    rows.forEach(([epoch], i) => expect(epoch).toBe(epochText(usOf(trace[i].t))));
    packets(file).forEach((p, i) => expect(p.timestampUs).toBe(CAPTURE_EPOCH_US + usOf(trace[i].t)));
    expect(tshark(['-r', file, '-c', '1', '-t', 'ud', '-T', 'fields', '-e', '_ws.col.Time']).trim()).toBe(
      '2002-02-28 00:00:00.047000',
    );
  });

  it('carries the payload encrypted as the game sends it: decrypting it gives the bytes the trace reports', () => {
    packets(file).forEach((p, i) => {
      expect(hexOf(decrypt(p.payload))).toBe(trace[i].hex);
      expect(hexOf(p.payload)).not.toBe(trace[i].hex); // byte 1 on is encrypted (its keystream byte is always 0xD6)
    });
    // and tshark sees the same UDP payloads
    const payloads = fields(file, ['udp.payload'], ['-d', 'udp.port==22101,data']).map(([hex]) => hex);
    packets(file).forEach((p, i) => expect(payloads[i]).toBe(hexOf(p.payload).toLowerCase()));
  });

  it("comments each packet with the trace's marks: the three fragments' retransmits, dead-zone ACKs", () => {
    const comments = fields(file, ['frame.comment']).map(([c]) => c);
    expectTraceMarks(comments, trace);
    for (const frag of ['frag=0/3', 'frag=1', 'frag=2']) {
      const marks = comments.filter((c) => c.startsWith(`game reliable+fragment seq=2 ${frag} [RETRANSMIT #`));
      expect(marks.length, frag).toBeGreaterThanOrEqual(10);
      expect(marks[0]).toContain('[RETRANSMIT #1]');
      expect(marks[9]).toContain('[RETRANSMIT #10]');
    }
  });

  it('two runs write byte-identical files', async () => {
    const again = join(dir, 'again.pcapng');
    await runWithPcap(['fragment-ack-bug', '--mode', 'stock'], again);
    expect(readFileSync(again).equals(readFileSync(file))).toBe(true);
  });

  it('--pcap-plaintext carries exactly the bytes the trace reports', async () => {
    const plain = join(dir, 'plain.pcapng');
    const { datagrams: n } = await runWithPcap(['fragment-ack-bug', '--mode', 'stock', '--pcap-plaintext'], plain);
    expect(n).toBe(datagrams);
    const ps = packets(plain);
    expect(ps).toHaveLength(datagrams);
    ps.forEach((p, i) => expect(hexOf(p.payload)).toBe(trace[i].hex));
    expect(fields(plain, ['frame.comment'])).toEqual(fields(file, ['frame.comment']));
  });
});

describe('what the link did, in the comments', () => {
  it('a lossy run keeps every datagram the link dropped, commented DROPPED by link: loss', async () => {
    const dir = temp('loss');
    const file = join(dir, 'lossy.pcapng');
    const lossy = ['fragment-ack-bug', '--mode', 'stock', '--set', 'link.both.loss=0.2'];
    const { datagrams, summary } = await runWithPcap(lossy, file);
    const lines = await traceLines(lossy);
    const ps = packets(file);
    expect(ps).toHaveLength(datagrams);
    expect(fields(file, ['frame.number'])).toHaveLength(datagrams);
    const dropped = ps.filter((p) => p.comment?.startsWith('DROPPED by link: loss | '));
    const links = summary.links as Record<string, { dropped: number }>;
    expect(dropped.length).toBe(links.clientToServer.dropped + links.serverToClient.dropped);
    expect(dropped.length).toBeGreaterThan(10);
    // The same datagrams as the trace's drops, at their send times.
    const drops = lines.filter((l) => l.event === 'drop');
    expect(dropped.map((p) => [p.timestampUs - CAPTURE_EPOCH_US, hexOf(decrypt(p.payload))])).toEqual(
      drops.map((d) => [usOf(d.t), d.hex]),
    );
    expect(fields(file, ['frame.comment']).filter(([c]) => c.includes('DROPPED')).length).toBe(dropped.length);
  });

  it('a message-scope rule: the datagram as sent, and the messages the rule removed', async () => {
    const dir = temp('rule');
    const file = join(dir, 'rule.pcapng');
    const rule = ['--set', 'link.serverToClient.drop=[{"scope":"message","match":{"type":"ack"},"first":2}]'];
    await runWithPcap(['fragment-ack-bug', ...rule, '--duration', '10s'], file);
    const trace = sends(await traceLines(['fragment-ack-bug', ...rule, '--until', '10s']));
    const ps = packets(file);
    ps.forEach((p, i) => expect(hexOf(decrypt(p.payload))).toBe(trace[i].hex));
    // The first ACK is the Connect's, alone in its datagram (docs/sources.md 26): removing it leaves nothing
    // to send, so that datagram is dropped whole; the second shares one with the keepalive echo.
    const byRule = ps.filter((p) => /by link:? rule/.test(p.comment ?? '')).map((p) => p.comment);
    expect(byRule).toEqual([
      'DROPPED by link: rule | ack seq=0 (low-type)',
      'REWRITTEN by link rule: removed #1 ack seq=1 (low-type) | ack seq=1 (low-type) ; data (0x00) reliable+ordered seq=1',
    ]);
  });
});

describe("the trace's marks, on busier runs", () => {
  it.each([
    ['lossy-link', ['--mode', 'stock'], '60s'],
    ['lossy-link', ['--mode', 'fixed'], '60s'],
    ['valentines', ['--mode', 'stock'], '30s'],
  ])('%s %j: every packet carries the marks of its trace line', async (scenario, mode, until) => {
    const file = join(temp('marks'), 'm.pcapng');
    await runWithPcap([scenario, ...mode, '--duration', until], file);
    const trace = sends(await traceLines([scenario, ...mode, '--until', until]));
    const ps = packets(file);
    expectTraceMarks(
      ps.map((p) => p.comment ?? ''),
      trace,
    );
    expect(ps.some((p) => p.comment?.includes('[RETRANSMIT #'))).toBe(true);
  });
});

describe('several clients', () => {
  it('each client at 10.10.10.(238+k):(22101+k), the server at 22101, IPv4 ids counted per host', async () => {
    const dir = temp('multi');
    const file = join(dir, 'v.pcapng');
    const { datagrams } = await runWithPcap(['valentines', '--duration', '15s'], file);
    const trace = sends(await traceLines(['valentines', '--until', '15s']));
    expect(trace).toHaveLength(datagrams);
    expect(new Set(trace.map((l) => l.client))).toEqual(new Set([1, 2, 3]));
    const rows = fields(file, ['ip.src', 'udp.srcport', 'ip.dst', 'udp.dstport', 'ip.id']);
    const ids = new Map<string, number>();
    rows.forEach(([src, sport, dst, dport, id], i) => {
      const { client, from } = trace[i];
      const c = [`10.10.10.${238 + client}`, String(22101 + client)];
      const s = ['10.10.10.1', '22101'];
      expect([src, sport, dst, dport]).toEqual(from === 'server' ? [...s, ...c] : [...c, ...s]);
      const n = ids.get(src) ?? 0;
      expect(Number(id)).toBe(n);
      ids.set(src, n + 1);
    });
    packets(file).forEach((p, i) => expect(hexOf(decrypt(p.payload))).toBe(trace[i].hex));
  });
});
