// The capture's parts around the writer: its AlbyRules against the codec's, the recorder
// that attaches a datagram's fate to its packet, file names and the all-or-nothing file set.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decrypt, encrypt } from '../../src/core/codec/index.js';
import { captureTargetProblem, columnCapturePath } from '../../src/analysis/capture/capture-file.js';
import { CaptureRecorder, CAPTURE_EPOCH_US, PENDING_LIMIT } from '../../src/analysis/capture/capture-recorder.js';
import { CaptureSet } from '../../src/analysis/capture/capture-set.js';
import { decryptInto, encryptInto } from '../../src/core/codec/index.js';
import { FRAME_HEADER_BYTES } from '../../src/core/pcap/frames.js';
import { SendNote } from '../../src/model/transport/datagram-builder.js';
import { tempDirs } from '../support/temp-dirs.js';
import { hex, packetsOf, readBlocks } from './pcapng-reader.js';

const { temp, remove } = tempDirs('bcsim-');
afterAll(remove);

describe("the capture's AlbyRules", () => {
  it.each([
    ['01 00 00 00 00 00', '01 D6 FE 17 F1 86'],
    ['01 01 01 02 00 02', '01 D7 31 78 DB 58'],
    ['02 01 32 07 80 05 00 2A 20', '02 D7 02 D4 22 78 8A B6 03'],
  ])('encrypts the spec vector %s to %s in place', (plain, wire) => {
    const out = new Uint8Array(20).fill(0xee);
    encryptInto(hex(plain), out, 3);
    expect([...out.subarray(3, 3 + hex(wire).length)]).toEqual([...hex(wire)]);
    expect(out[2]).toBe(0xee);
    const back = new Uint8Array(hex(wire).length);
    decryptInto(hex(wire), back, 0);
    expect([...back]).toEqual([...hex(plain)]);
  });

  it('equals the codec cipher on any datagram', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (plain) => {
        const out = new Uint8Array(plain.length);
        encryptInto(plain, out, 0);
        expect([...out]).toEqual([...encrypt(plain)]);
        const back = new Uint8Array(plain.length);
        decryptInto(plain, back, 0);
        expect([...back]).toEqual([...decrypt(plain)]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('the recorder', () => {
  it('attaches a drop or a rewrite to the packet already recorded, and writes every packet in send order', () => {
    const chunks: Buffer[] = [];
    const recorder = new CaptureRecorder((c) => chunks.push(Buffer.from(c)), { plaintext: true });
    const sent: Uint8Array[] = [];
    for (let i = 0; i < PENDING_LIMIT * 3; i++) {
      const bytes = hex(`01 01 01 ${(i & 0xff).toString(16).padStart(2, '0')} 00 00`);
      sent.push(bytes);
      recorder.datagramSent(i * 1000, 'server', bytes, [-1], [SendNote.Ack], 1);
      if (i % 7 === 3) recorder.datagramDropped(i * 1000, 'server', bytes, 'loss', 1);
    }
    recorder.finish();
    expect(recorder.unmatchedFates).toBe(0);
    const packets = packetsOf(readBlocks(Buffer.concat(chunks)));
    expect(packets).toHaveLength(PENDING_LIMIT * 3);
    packets.forEach((p, i) => {
      expect(p.timestamp).toBe(BigInt(CAPTURE_EPOCH_US + i * 1000));
      expect([...p.data.subarray(FRAME_HEADER_BYTES)]).toEqual([...sent[i]]);
      expect((p.data[18] << 8) | p.data[19]).toBe(i); // IPv4 identification counts the server's packets
      expect(p.comments).toEqual([`${i % 7 === 3 ? 'DROPPED by link: loss | ' : ''}ack seq=${i & 0xff}`]);
    });
  });

  it('counts a fate for a datagram it never saw instead of failing', () => {
    const recorder = new CaptureRecorder(() => {});
    recorder.datagramDropped(0, 'client', Uint8Array.of(1, 0), 'loss');
    expect(recorder.unmatchedFates).toBe(1);
  });
});

describe('capture files', () => {
  it('puts the column label before the extension', () => {
    expect(columnCapturePath('out.pcapng', 'stock')).toBe('out.stock.pcapng');
    expect(columnCapturePath('/tmp/a.b/out.pcapng', 'fixed')).toBe('/tmp/a.b/out.fixed.pcapng');
    expect(columnCapturePath('/tmp/a.b/out', 'fixed')).toBe('/tmp/a.b/out.fixed');
    expect(columnCapturePath('x.pcap', 'cause:partial-ack')).toBe('x.cause-partial-ack.pcap');
  });

  it('refuses a missing folder, a folder as the file and an unwritable place, creating nothing', () => {
    const dir = temp('target');
    expect(captureTargetProblem(join(dir, 'x.pcapng'), '/')).toBeUndefined();
    expect(captureTargetProblem(join(dir, 'missing', 'x.pcapng'), '/')).toMatch(/does not exist/);
    expect(captureTargetProblem(dir, '/')).toMatch(/is a folder/);
    expect(captureTargetProblem('', dir)).toMatch(/empty path/);
    expect(captureTargetProblem('/proc/x.pcapng', '/')).toMatch(/cannot write/);
    // Renaming over a device would replace it: refused.
    expect(captureTargetProblem('/dev/null', '/')).toMatch(/not a regular file/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a set appears whole on commit, and not at all on abort', () => {
    const dir = temp('set');
    const set = new CaptureSet();
    set.open(join(dir, 'a.pcapng'));
    set.open(join(dir, 'b.pcapng'));
    expect(readdirSync(dir).every((n) => n.startsWith('.bcsim-tmp-'))).toBe(true);
    expect(set.commit().map((p) => p.slice(dir.length + 1))).toEqual(['a.pcapng', 'b.pcapng']);
    expect(readdirSync(dir).sort()).toEqual(['a.pcapng', 'b.pcapng']);
    const failing = new CaptureSet();
    expect(() =>
      failing.guard(() => {
        failing.open(join(dir, 'c.pcapng'));
        failing.open(join(dir, 'd.pcapng'));
        throw new Error('the run failed');
      }),
    ).toThrow('the run failed');
    expect(readdirSync(dir).sort()).toEqual(['a.pcapng', 'b.pcapng']);
    expect(existsSync(join(dir, 'c.pcapng'))).toBe(false);
  });
});
