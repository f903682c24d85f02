// The reader held against Wireshark's own tools (CI installs them; never skipped):
// captures written by text2pcap read back to the same BC datagrams, and the
// hand-built test captures (test/support/pcap-build.ts) read by tshark to the
// same UDP payloads as by bcsim, so the builders test what real files hold.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanCapture } from '../../src/analysis/capture/bc-packets.js';
import { openCapture } from '../../src/core/pcap/index.js';
import { udpFromFrame } from '../../src/core/pcap/udp.js';
import { encrypt, toHex } from '../../src/core/codec/index.js';
import {
  EPOCH_US,
  ack,
  bc,
  ethernet,
  ipv4,
  pcap,
  pcapng,
  reliable,
  sll,
  sll2,
  CLIENT_IP,
  SERVER_IP,
} from '../support/pcap-build.js';

const has = (tool: string) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
const tools = has('tshark') && has('text2pcap');
const dir = mkdtempSync(join(tmpdir(), 'bcsim-tshark-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DATAGRAMS = [
  bc(0xff, [reliable(0, [0xff, 1, 2], 0x03)]),
  bc(0x01, [reliable(0, [2], 0x03), ack(0, 2)]),
  bc(0x02, [ack(0, 2), ack(7, 0, 1)]),
];

/** The UDP payloads bcsim's reader finds, as hex. */
function ourPayloads(path: string): string[] {
  const opened = openCapture(path);
  if (!opened.ok) throw new Error(opened.error.reason);
  const out: string[] = [];
  for (;;) {
    const step = opened.reader.next();
    if (step.kind === 'end') break;
    if (step.kind === 'error') throw new Error(step.error.reason);
    if (step.kind !== 'packet') continue;
    const u = udpFromFrame(step.packet.linkType, step.packet.data);
    if (u.ok) out.push(toHex(u.udp.payload, ''));
  }
  return out;
}

function tsharkPayloads(path: string): string[] {
  const text = execFileSync('tshark', ['-r', path, '-T', 'fields', '-e', 'udp.payload'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => l.toUpperCase());
}

describe('against tshark and text2pcap', () => {
  it('has the tools (.ci/run installs tshark, which brings text2pcap)', () => {
    expect(tools, 'tshark and text2pcap must be installed: apt-get install tshark').toBe(true);
  });
  for (const [format, link] of [
    ['pcap', 'ethernet'],
    ['pcapng', 'ethernet'],
    ['pcap', 'raw'],
    ['pcapng', 'raw'],
  ] as const) {
    it(`text2pcap ${format}, ${link}: the same BC datagrams`, () => {
      const hexdump = DATAGRAMS.map((d) => `0000 ${toHex(encrypt(d))}\n`).join('\n');
      const input = join(dir, `in-${format}-${link}.txt`);
      const output = join(dir, `t2p-${format}-${link}.${format}`);
      writeFileSync(input, hexdump);
      const args = [
        '-q',
        '-F',
        format,
        ...(link === 'raw' ? ['-l', '101'] : []),
        '-u',
        '22102,22101',
        '-4',
        '10.10.10.239,10.10.10.1',
        input,
        output,
      ];
      execFileSync('text2pcap', args, { stdio: 'ignore' });
      const found: string[] = [];
      const result = scanCapture(output, { onDatagram: (d) => found.push(toHex(d.plain)) });
      if (!result.ok) throw new Error(result.error.reason);
      expect(result.stats.error).toBeNull();
      expect(found).toEqual(DATAGRAMS.map((d) => toHex(d)));
    });
  }

  it('the hand-built captures read the same in tshark', () => {
    const payload = (i: number) => encrypt(DATAGRAMS[i % DATAGRAMS.length]);
    const ip = (i: number) => ipv4({ src: CLIENT_IP, dst: SERVER_IP, sport: 22102, dport: 22101, payload: payload(i) });
    const cases: Array<[string, Uint8Array]> = [
      ['pcap-le', pcap([0, 1, 2].map((i) => ({ timeUs: EPOCH_US + i, data: ethernet(ip(i)) })))],
      [
        'pcap-be-ns',
        pcap(
          [0, 1, 2].map((i) => ({ timeUs: EPOCH_US + i, data: ethernet(ip(i)) })),
          { order: 'be', nanosecond: true },
        ),
      ],
      [
        'pcap-sll',
        pcap(
          [0, 1].map((i) => ({ timeUs: EPOCH_US + i, data: sll(ip(i)) })),
          { linkType: 113 },
        ),
      ],
      [
        'pcap-sll2',
        pcap(
          [0, 1].map((i) => ({ timeUs: EPOCH_US + i, data: sll2(ip(i)) })),
          { linkType: 276 },
        ),
      ],
      [
        'pcap-vlan',
        pcap(
          [0, 1].map((i) => ({
            timeUs: EPOCH_US + i,
            data: ethernet(ip(i), {
              vlans: [
                [0x88a8, 7],
                [0x8100, 5],
              ],
            }),
          })),
        ),
      ],
      [
        'pcap-raw4',
        pcap(
          [0, 1].map((i) => ({ timeUs: EPOCH_US + i, data: ip(i) })),
          { linkType: 228 },
        ),
      ],
      [
        'pcapng-mixed',
        pcapng([
          {
            order: 'be',
            interfaces: [{ linkType: 1, tsresol: 9 }],
            blocks: [{ kind: 'epb', packet: { timeUs: EPOCH_US, data: ethernet(ip(0)) }, comment: 'x' }],
          },
          {
            order: 'le',
            interfaces: [{ linkType: 276 }],
            blocks: [
              { kind: 'raw', type: 0x0badf00d, body: new Uint8Array(8) },
              { kind: 'epb', packet: { timeUs: EPOCH_US + 5, data: sll2(ip(1)) } },
              { kind: 'spb', data: sll2(ip(2)) },
            ],
          },
        ]),
      ],
    ];
    for (const [name, bytes] of cases) {
      const path = join(dir, `${name}.cap`);
      writeFileSync(path, bytes);
      expect(ourPayloads(path), name).toEqual(tsharkPayloads(path));
      expect(ourPayloads(path).length, name).toBeGreaterThan(0);
    }
  });
});
