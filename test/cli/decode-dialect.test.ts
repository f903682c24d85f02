// `bcsim decode` on the wire forms of docs/sources.md 30: read, every deviation
// shown with its offset (text and --json), never refused; malformed bytes keep
// today's offset and reason. `decode --pcap` shows them under their trace line.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encrypt } from '../../src/core/codec/index.js';
import { cli } from '../support/cli.js';
import { DIALECT_SESSION, dialectBytes } from '../support/dialect-traffic.js';
import { EPOCH_US, pcap, udpPackets } from '../support/pcap-build.js';

describe('bcsim decode: wire forms of real reimplementations', () => {
  it('the two-byte keepalive 01 01 00 02: decoded, the deviation at offset 3, the stock form shown', async () => {
    const r = await cli(['decode', '01 01 00 02']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('@2    data (0x00) unreliable len=2 length_u8=2 flags=none payload=0B');
    expect(r.stdout).toContain(
      "@3 deviation: two-byte message (one-byte length 2, no flags byte); stock's smallest message is 3 bytes, [type][flags_len u16]",
    );
    expect(r.stdout).toContain('stock form: 01 01 00 03 00');
    expect(r.stdout).not.toContain('error');
  });

  it("the test client's Connect FF 01 03 08 01 00 00 00 7F 00", async () => {
    const r = await cli(['decode', 'FF', '01', '03', '08', '01', '00', '00', '00', '7F', '00']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('connect (type 0x03 as captured) unreliable len=8 length_u8=8 flags=0x01 payload=5B');
    expect(r.stdout).toContain(
      '@4 deviation: one-byte length 8 and flags byte 0x01; stock reads flags_len 0x0108 as length 264',
    );
    expect(r.stdout).toContain('@4 deviation: Connect without the reliable bit or a seq');
    expect(r.stdout).toContain('stock form: FF 01 03 0A C0 00 00 00 00 00 7F 00');
  });

  it('a type-0x06 Disconnect and an ACK with flags 0x80', async () => {
    const disconnect = await cli(['decode', '02 01 06 02']);
    expect(disconnect.code).toBe(0);
    expect(disconnect.stdout).toContain('disconnect (0x06) unreliable len=2');
    expect(disconnect.stdout).toContain("@2 deviation: type 0x06 Disconnect; stock's Disconnect is type 0x05");
    const ack = await cli(['decode', '02 01 01 05 00 80']);
    expect(ack.code).toBe(0);
    expect(ack.stdout).toContain('@5 deviation: ACK flags 0x80 set bits outside 0-1');
    expect(ack.stdout).not.toContain('stock form'); // the bytes are stock-readable as they are
  });

  it('--json: the deviations with offset, code and note, and the stock form', async () => {
    const r = await cli(['decode', '--json', '01 01 00 02']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.ok).toBe(true);
    expect(j.deviations).toEqual([
      { offset: 3, code: 'two-byte-message', note: expect.stringMatching(/^deviation: two-byte message/) },
    ]);
    expect(j.stockHex).toBe('0101000300');
    expect(j.messages[0]).toMatchObject({
      type: 0,
      size: 2,
      wireForm: { typeByte: 0, lengthByte: 2, flagsByte: null },
    });
    const stock = JSON.parse((await cli(['decode', '--json', '02 01 01 02 00 01 02'])).stdout);
    expect([stock.deviations, stock.stockHex]).toEqual([[], null]);
  });

  it('an encrypted deviating datagram is found by trying both readings', async () => {
    const wire = Array.from(encrypt(Uint8Array.from([0x01, 0x01, 0x00, 0x02])), (b) =>
      b.toString(16).padStart(2, '0'),
    ).join(' ');
    const r = await cli(['decode', '--json', wire]);
    const j = JSON.parse(r.stdout);
    expect([r.code, j.reading, j.deviations.map((d: { code: string }) => d.code)]).toEqual([
      0,
      'encrypted',
      ['two-byte-message'],
    ]);
  });

  it('truly malformed bytes keep their offset and reason, exit 1', async () => {
    for (const [bytes, line] of [
      ['01 01 00 02 00', 'error at offset 2: length 2 is smaller than its 3-byte header'],
      ['01 01 32 1B 80 00 00 01', 'error at offset 2: length 27 runs past the end (6 bytes remain)'],
      ['01 01 07 02', 'error at offset 2: unknown message type 0x07'],
    ]) {
      const r = await cli(['decode', '--plain', bytes]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(line);
      expect(r.stdout).not.toContain('deviation');
    }
  });
});

describe('the documented and --help examples of the wire forms', () => {
  it('docs/captures.md "Wire forms of real reimplementations": the example prints exactly what the page shows', async () => {
    const readme = readFileSync(join(__dirname, '../../docs/captures.md'), 'utf8');
    const example = '```sh\nnpx bcsim decode 01 01 00 02\n```\n';
    const at = readme.indexOf(example);
    expect(at).toBeGreaterThan(0);
    const shown = /```\n([\s\S]*?)```/.exec(readme.slice(at + example.length))![1];
    const r = await cli(['decode', '01', '01', '00', '02']);
    expect(r.stdout).toBe(shown);
  });

  it('decode --help lists the forms with examples that decode (exit 0)', async () => {
    const help = await cli(['decode', '--help']);
    const examples = help.stdout
      .split('\n')
      .filter((l) => /^ {2}bcsim decode [0-9A-F]{2} /.test(l) && l.includes('(a '));
    expect(examples.length).toBe(2);
    for (const line of examples) {
      const hex = line.replace(/\(.*$/, '').trim().split(/\s+/).slice(2);
      const r = await cli(['decode', ...hex]);
      expect([r.code, r.stdout.includes('deviation:')]).toEqual([0, true]);
    }
  });
});

describe('bcsim decode --pcap: deviations under their datagram', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bcsim-dialect-decode-'));
  const file = join(dir, 'dialect.pcap');
  writeFileSync(
    file,
    pcap(
      udpPackets(
        DIALECT_SESSION.map((p) => ({
          timeUs: p.t * 1e6,
          from: p.fromServer ? 'server' : 'client',
          bytes: dialectBytes(p),
        })),
      ),
    ),
  );

  it('every datagram is shown; each deviation follows its trace line with its offset; the summary counts them', async () => {
    const r = await cli(['decode', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# 6 BC datagrams shown · 5 with deviations from the stock form');
    const lines = r.stdout.split('\n');
    const connect = lines.findIndex((l) => l.includes('C>S') && l.includes('FF 01 03 08 01'));
    // The trace line shows the message's wire bytes, not a flags_len it never had.
    expect(lines[connect]).toContain(
      'connect (type 0x03 as captured) unreliable len=8 length_u8=8 flags=0x01 payload=5B',
    );
    expect(lines[connect + 1].trim()).toBe(
      '@4 deviation: one-byte length 8 and flags byte 0x01; stock reads flags_len 0x0108 as length 264',
    );
    expect(lines[connect + 2].trim()).toMatch(/^@4 deviation: Connect without the reliable bit/);
    const keepalive = lines.findIndex((l) => l.includes('S>C') && l.endsWith('| 01 01 00 02'));
    expect(lines[keepalive + 1].trim()).toMatch(/^@3 deviation: two-byte message/);
    expect(r.stdout).not.toContain('other UDP (');
    expect(EPOCH_US).toBeGreaterThan(0);
  });

  it('--json: a deviations array (and the stock form) on exactly the datagrams that have them', async () => {
    const r = await cli(['decode', file, '--json']);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => (x.deviations ?? []).map((d: { code: string }) => d.code))).toEqual(
      DIALECT_SESSION.map((p) => p.codes),
    );
    expect(rows[0].stockHex).toBe('FF01030AC000000000007F00');
    expect(rows[0].messages[0].wireForm).toEqual({ typeByte: 3, lengthByte: 8, flagsByte: 1 });
    expect(rows[2].stockHex).toBeUndefined(); // an ACK with flags 0x80 is stock-readable as sent
  });
});
