// The Wireshark dissector on the wire forms real reimplementations send
// (docs/sources.md 30), in tshark: read, not malformed; each deviation an item and
// an expert note worded as `bcsim decode` words it, at the same offset; the
// heuristic claims ACK flag bytes with bit 7 set. Crafted captures only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeDatagram, decodeDialect, decrypt, encrypt } from '../../src/core/codec/index.js';
import { DIALECT_SESSION, dialectBytes } from '../support/dialect-traffic.js';
import { checkFrame } from './expect-frame.js';
import type { Mark } from './expect-frame.js';
import { UNREGISTERED_ADDRESSING, dissect, matchFrames, requireWireshark, tshark, writeCapture } from './tshark.js';
import type { TsharkOptions, WirePacket } from './tshark.js';

let work: string;
let options: TsharkOptions;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bcsim-dissector-dialect-'));
  options = { home: join(work, 'home') };
});

beforeEach(() => {
  requireWireshark();
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A datagram of 1-6 messages in the forms of docs/sources.md 30 and the stock form, mixed. */
function randomDialectDatagram(random: () => number): Uint8Array {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const byte = () => Math.floor(random() * 256);
  const messages: number[][] = [];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const kind = random();
    const payload = Array.from({ length: Math.floor(random() * 12) }, byte);
    if (kind < 0.25) messages.push([pick([0x00, 0x02, 0x03, 0x04, 0x05, 0x06]), 2]);
    else if (kind < 0.55) {
      const type = pick([0x00, 0x02, 0x03, 0x04, 0x05, 0x06]);
      const flags =
        pick([0x00, 0x40, 0x80, 0xc0]) | (type === 0x06 && random() < 0.5 ? 0 : 1 + Math.floor(random() * 0x3f));
      const seq = flags & 0x80 ? [byte(), byte()] : [];
      messages.push([type, 3 + seq.length + payload.length, flags, ...seq, ...payload]);
    } else if (kind < 0.75) messages.push([0x01, byte(), byte(), pick([0x00, 0x02, 0x80, 0x82, 0x42])]);
    else messages.push([0x32, 5 + payload.length, 0x80, byte(), byte(), ...payload]);
  }
  return Uint8Array.from([pick([0x01, 0x02, 0xff]), count, ...messages.flat()]);
}

describe('the dissector on the wire forms of docs/sources.md 30', () => {
  it('a session in those forms: every datagram read (none malformed), deviations as bcsim decode names them', () => {
    const packets: WirePacket[] = DIALECT_SESSION.map((p) => ({
      t: p.t,
      fromServer: p.fromServer,
      client: 1,
      bytes: encrypt(dialectBytes(p)),
    }));
    const file = writeCapture(work, 'dialect-session', packets);
    const frames = matchFrames(dissect(file, options), packets);
    frames.forEach((frame, i) =>
      checkFrame(frame, packets[i].bytes, dialectBytes(DIALECT_SESSION[i]), 'encrypted', []),
    );
    expect(frames.map((f) => f.bc!.messages.flatMap((m) => m.fields['bc.deviation.code'] ?? []))).toEqual(
      DIALECT_SESSION.map((p) => p.codes),
    );
    // The Info column names them too.
    const info = tshark(file, ['-T', 'fields', '-e', '_ws.col.Info'], options).trim().split('\n');
    expect(info[0]).toBe(
      'C>S peer=0xFF: connect (type 0x03 as captured) unreliable len=8 [DEVIATION: one-byte-length, connect-without-seq]',
    );
    expect(info[5]).toBe(
      'C>S peer=0x02: disconnect (type 0x06) unreliable len=2 [DEVIATION: disconnect-type-06, two-byte-message]',
    );
  });

  it('200 random datagrams in those forms: tshark and bcsim agree on every message, deviation, offset and note', () => {
    const random = seedrandom('bcsim-dissector-dialect');
    const packets: WirePacket[] = [];
    while (packets.length < 200) {
      const plain = randomDialectDatagram(random);
      const wire = encrypt(plain);
      // Only datagrams whose plaintext reading does not compete (as for the malformed cases).
      if (!decodeDialect(plain).ok || decodeDialect(wire).ok) continue;
      packets.push({ t: packets.length / 100, fromServer: plain[0] === 1, client: 1, bytes: wire });
    }
    const plains = packets.map((p) => decrypt(p.bytes));
    expect(plains.filter((p) => !decodeDatagram(p).ok).length).toBeGreaterThan(100);
    const frames = matchFrames(dissect(writeCapture(work, 'dialect-random', packets), options), packets);
    // Retransmission marks are not what this test is about: a seq seen again would carry one.
    frames.forEach((frame, i) => {
      const marked = frame.bc!.messages.map((m): Mark | undefined => {
        const f = m.fields;
        if (f['bc.retransmit'])
          return {
            kind: f['bc.retransmit.kind'][0] as 'reliable',
            first: Number(f['bc.retransmit.first_frame'][0]),
            number: Number(f['bc.retransmit.number'][0]),
          };
        if (f['bc.ack.sends'])
          return {
            kind: 'ack',
            first: Number(f['bc.ack.first_frame']?.[0] ?? frame.number),
            sends: Number(f['bc.ack.sends'][0]),
            deadZone: f['bc.ack.dead_zone'] !== undefined,
          };
        return undefined;
      });
      checkFrame(frame, packets[i].bytes, plains[i], 'encrypted', marked);
    });
  });

  it('heuristic: ACK flag bytes with bit 7 set are claimed on other ports; datagrams only a dialect reads are not', () => {
    const ackWithBit7 = [
      { plain: '02 01 01 05 00 80', claimed: true },
      { plain: '02 02 01 05 00 80 01 06 00 82', claimed: true },
      { plain: '02 01 01 05 00 84', claimed: false }, // bit 2 is used by no sender
      { plain: 'FF 01 03 08 01 00 00 00 7F 00', claimed: false }, // one-byte length: the registered port only
    ];
    const packets: WirePacket[] = ackWithBit7.map((c, i) => ({
      t: i,
      fromServer: false,
      client: 1,
      bytes: encrypt(hex(c.plain)),
    }));
    const frames = matchFrames(
      dissect(writeCapture(work, 'dialect-heuristic', packets, UNREGISTERED_ADDRESSING), options),
      packets,
      UNREGISTERED_ADDRESSING,
    );
    expect(frames.map((f) => f.bc !== undefined)).toEqual(ackWithBit7.map((c) => c.claimed));
    checkFrame(frames[0], packets[0].bytes, hex(ackWithBit7[0].plain), 'encrypted', []);
  });
});

function hex(text: string): Uint8Array {
  return Uint8Array.from(text.split(' ').map((b) => parseInt(b, 16)));
}
