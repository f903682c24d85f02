// Which UDP datagrams the dissector claims, and how it shows malformed ones: bcsim's
// offsets and reasons, oversize datagrams, GameSpy queries and random noise.
// Never skipped: without tshark every test fails and says so.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { decodeDatagram, decrypt, encrypt } from '../../src/core/codec/index.js';
import { checkFrame } from './expect-frame.js';
import { UNREGISTERED_ADDRESSING, dissect, writeCapture } from './tshark.js';
import { hexBytes, tsharkWorkspace } from './workspace.js';

const space = tsharkWorkspace('bcsim-dissector-');

describe('the Wireshark dissector in tshark', () => {
  it("malformed datagrams: expert info with bcsim's offset and reason, what decoded before it, no Lua error", () => {
    const cases = [
      '02', // truncated-header
      '02 02 01 05 00 00', // missing-messages
      '02 01 07 00 00', // unknown-type
      '02 01 01 05 00', // truncated-message: ack
      '02 01 01 05 00 01', // truncated-message: fragment ack
      '02 01 32 05', // truncated-message: header
      '02 01 32 30 80 05 00 2A 20', // length-past-end
      '02 01 32 04 80 05 00', // length-below-header
      '02 01 32 06 A0 05 00 00 03', // length-below-header, fragment 0
      '02 01 00 02 00', // length-below-header, generic type
      '02 01 01 05 00 00 FF', // trailing-bytes
      '01 02 01 05 00 00 32 30 80 05 00', // one ack, then a length past the end
    ].map(hexBytes);
    const codes = new Set(cases.map((plain) => (decodeDatagram(plain) as { error: { code: string } }).error.code));
    expect(codes).toEqual(
      new Set([
        'truncated-header',
        'missing-messages',
        'unknown-type',
        'truncated-message',
        'length-past-end',
        'length-below-header',
        'trailing-bytes',
      ]),
    );
    const packets = cases.map((plain, i) => ({
      t: i / 10,
      fromServer: plain[0] === 1,
      client: 1,
      bytes: encrypt(plain),
    }));
    // Precondition: the wire bytes do not parse as plaintext either, so the automatic reading decrypts.
    for (const p of packets) expect(decodeDatagram(p.bytes).ok).toBe(false);
    const frames = dissect(writeCapture(space.work, 'malformed', packets), space.options);
    expect(frames.length).toBe(cases.length);
    cases.forEach((plain, i) => checkFrame(frames[i], packets[i].bytes, plain, 'encrypted', []));
    expect(frames[11].bc!.messages.length).toBe(1);
  });

  it('a malformed datagram in a plaintext conversation is read as plaintext, like the datagrams before it', () => {
    const good = hexBytes('02 01 32 07 80 05 00 2A 20');
    const bad = hexBytes('02 01 32 30 80 05 00 2A 20');
    expect(decodeDatagram(decrypt(bad)).ok).toBe(false);
    const packets = [good, bad].map((bytes, i) => ({ t: i, fromServer: false, client: 1, bytes }));
    const frames = dissect(writeCapture(space.work, 'plain-malformed', packets), space.options);
    checkFrame(frames[0], good, good, 'plaintext', []);
    checkFrame(frames[1], bad, bad, 'plaintext', []);
  });

  it('a datagram over 512 bytes decodes on port 22101 with a warning (the heuristic never takes one)', () => {
    const size = 598; // one unreliable game message: flags_len 0x0256
    const plain = Uint8Array.from({ length: size + 2 }, (_, i) => (i * 7) & 0xff);
    plain.set([0x02, 0x01, 0x32, size & 0xff, size >> 8, 0x1c]);
    expect(decodeDatagram(plain).ok).toBe(true);
    const wire = encrypt(plain);
    const frames = dissect(
      writeCapture(space.work, 'oversize', [{ t: 0, fromServer: false, client: 1, bytes: wire }]),
      space.options,
    );
    checkFrame(frames[0], wire, plain, 'encrypted', []);
    const elsewhere = dissect(
      writeCapture(
        space.work,
        'oversize-heuristic',
        [{ t: 0, fromServer: false, client: 1, bytes: wire }],
        UNREGISTERED_ADDRESSING,
      ),
      space.options,
    );
    expect(elsewhere[0].bc).toBeUndefined();
  });

  it('GameSpy queries on port 22101 (they start with a backslash) are not claimed', () => {
    const queries = ['\\status\\', '\\basic\\', '\\info\\xserverquery\\', '\\echo\\abc'].map((q) =>
      new TextEncoder().encode(q),
    );
    const packets = [...queries, hexBytes('02 D7 02 D4 22 78 8A B6 03')].map((bytes, i) => ({
      t: i,
      fromServer: false,
      client: 1,
      bytes,
    }));
    const frames = dissect(writeCapture(space.work, 'gamespy', packets), space.options);
    for (const frame of frames.slice(0, queries.length)) {
      expect(frame.protocols).toBe('eth:ethertype:ip:udp:data');
      expect(frame.bc).toBeUndefined();
    }
    expect(frames[queries.length].bc!.fields['bc.ok']).toEqual(['1']);
  });

  it('heuristic: random datagrams that parse in neither reading, and GameSpy queries, are not claimed', () => {
    const random = seedrandom('bcsim-dissector-noise');
    const noise: Uint8Array[] = [];
    const firstBytes = [0x01, 0x02, 0x03, 0xff, 0x5c];
    while (noise.length < 400) {
      const length = 1 + Math.floor(random() * (random() < 0.5 ? 24 : 512));
      const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
      if (random() < 0.8) bytes[0] = firstBytes[Math.floor(random() * firstBytes.length)];
      // Now and then a plausible start: msg_count 1 and a known type, encrypted.
      if (random() < 0.3 && length > 3) {
        bytes[1] = 1;
        bytes[2] = [0x00, 0x01, 0x32][Math.floor(random() * 3)];
        noise.push(encrypt(bytes));
      } else {
        noise.push(bytes);
      }
      const last = noise[noise.length - 1];
      if (decodeDatagram(last).ok || decodeDatagram(decrypt(last)).ok) noise.pop();
    }
    const queries = ['\\status\\', '\\basic\\\\secure\\ABCDEF'].map((q) => new TextEncoder().encode(q));
    const packets = [...noise, ...queries].map((bytes, i) => ({
      t: i / 100,
      fromServer: i % 2 === 0,
      client: 7,
      bytes,
    }));
    const frames = dissect(writeCapture(space.work, 'noise', packets, UNREGISTERED_ADDRESSING), space.options);
    expect(frames.length).toBe(packets.length);
    const claimed = frames.filter((f) => f.bc !== undefined || f.protocols.includes(':bc'));
    expect(claimed.map((f) => f.number)).toEqual([]);
  });
});
