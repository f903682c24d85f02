// The trace hash is SHA-256 of the canonical trace (trace-hash.ts), fed to the
// hash in 64 KB chunks. Every trace, however it falls across chunks, must give
// the SHA-256 of the trace written out plainly.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TraceHasher, sha256Hex } from '../../src/model/session/trace-hash.js';

interface Datagram {
  timeUs: number;
  direction: number;
  bytes: Uint8Array;
}

/** The canonical trace, written out plainly: time u64 LE, direction u8, length u16 LE, bytes. */
function canonical(datagrams: readonly Datagram[]): string {
  const hash = createHash('sha256');
  for (const d of datagrams) {
    const head = Buffer.alloc(11);
    head.writeBigUInt64LE(BigInt(d.timeUs), 0);
    head.writeUInt8(d.direction, 8);
    head.writeUInt16LE(d.bytes.length, 9);
    hash.update(head).update(d.bytes);
  }
  return hash.digest('hex');
}

function traceHash(datagrams: readonly Datagram[]): string {
  const hasher = new TraceHasher();
  for (const d of datagrams) hasher.record(d.timeUs, d.direction, d.bytes);
  return hasher.digest();
}

const datagram = fc.record({
  timeUs: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  direction: fc.integer({ min: 0, max: 255 }),
  bytes: fc.uint8Array({ minLength: 0, maxLength: 512 }),
});

describe('TraceHasher', () => {
  it('gives SHA-256 of the canonical trace for traces of up to 100 datagrams', () => {
    fc.assert(
      fc.property(fc.array(datagram, { maxLength: 100 }), (datagrams) => {
        expect(traceHash(datagrams)).toBe(canonical(datagrams));
      }),
    );
  });

  it('gives SHA-256 of the canonical trace across chunk boundaries', () => {
    // 150 to 400 datagrams of up to 512 bytes: from under one 64 KB chunk to over three.
    fc.assert(
      fc.property(fc.array(datagram, { minLength: 150, maxLength: 400 }), (datagrams) => {
        expect(traceHash(datagrams)).toBe(canonical(datagrams));
      }),
      { numRuns: 40 },
    );
  });

  it('hashes a trace that exactly fills one chunk, and one a datagram over, as node:crypto does', () => {
    // 128 datagrams of 501 bytes (512 with the header) fill the 65,536-byte chunk exactly.
    const full: Datagram[] = Array.from({ length: 128 }, (_, i) => ({
      timeUs: i * 1000,
      direction: i & 1,
      bytes: new Uint8Array(501).fill(i),
    }));
    expect(traceHash(full)).toBe(canonical(full));
    const over = [...full, { timeUs: 200_000, direction: 1, bytes: new Uint8Array([7]) }];
    expect(traceHash(over)).toBe(canonical(over));
  });

  it('refuses a datagram recorded after the digest', () => {
    const hasher = new TraceHasher();
    hasher.record(0, 0, new Uint8Array([1]));
    hasher.digest();
    expect(() => hasher.record(1, 0, new Uint8Array([2]))).toThrow('after the digest');
  });

  it('gives the empty trace SHA-256 of nothing', () => {
    expect(new TraceHasher().digest()).toBe(createHash('sha256').digest('hex'));
  });
});

describe('sha256Hex', () => {
  it("is node:crypto's SHA-256 of the text's UTF-8 bytes, in hex", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
    );
  });
});
