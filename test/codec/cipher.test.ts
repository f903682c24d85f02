// AlbyRules (docs/sources.md 22): the three vectors, a 100,000-datagram round trip,
// and no input that makes it throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decrypt, decryptInto, encrypt, encryptInto, parseHex, toHex } from '../../src/core/codec/index.js';

const bytes = (hex: string): Uint8Array => {
  const parsed = parseHex(hex);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.bytes;
};

const VECTORS: Array<[string, string]> = [
  ['01 00 00 00 00 00', '01 D6 FE 17 F1 86'],
  ['01 01 01 02 00 02', '01 D7 31 78 DB 58'],
  ['02 01 32 07 80 05 00 2A 20', '02 D7 02 D4 22 78 8A B6 03'],
];

/** docs/sources.md 22 step by step, key bytes and all: the oracle the codec's table form must equal. */
function reference(input: Uint8Array, decrypting: boolean): Uint8Array {
  const out = Uint8Array.from(input);
  const k = [...'AlbyRules!'].map((c) => c.charCodeAt(0));
  const w = [0, 0, 0, 0, 0];
  let x = 0;
  let s = 0;
  for (let n = 1; n < input.length; n++) {
    let acc = 0;
    for (let i = 0; i < 5; i++) {
      w[i] = (k[2 * i] << 8) | k[2 * i + 1];
      if (i > 0) w[i] ^= w[i - 1];
      const c1 = ((x + i) * 0x4e35) & 0xffff;
      const c2 = (w[i] * 0x015a) & 0xffff;
      const d = (c1 + c2 + s) & 0xffff;
      s = c2;
      w[i] = (w[i] * 0x4e35 + 1) & 0xffff;
      x = d;
      acc ^= w[i] ^ d;
    }
    out[n] = input[n] ^ ((acc >> 8) ^ (acc & 0xff));
    const plain = decrypting ? out[n] : input[n];
    for (let j = 0; j < 10; j++) k[j] ^= plain;
  }
  return out;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

describe('AlbyRules cipher', () => {
  it.each(VECTORS)('encrypts %s to %s and back', (plain, wire) => {
    expect(toHex(encrypt(bytes(plain)))).toBe(toHex(bytes(wire)));
    expect(toHex(decrypt(bytes(wire)))).toBe(toHex(bytes(plain)));
  });

  it('keeps byte 0 in the clear and starts its keystream with 0xD6, not 0x00', () => {
    const wire = encrypt(new Uint8Array([0x7f, 0, 0]));
    expect(wire[0]).toBe(0x7f);
    expect(wire[1]).toBe(0xd6);
  });

  it('resets its state per datagram: the same datagram twice encrypts the same way', () => {
    const plain = bytes('02 01 32 07 80 05 00 2A 20');
    expect(toHex(encrypt(plain))).toBe(toHex(encrypt(plain)));
    expect(toHex(plain)).toBe('02 01 32 07 80 05 00 2A 20'); // the input is not touched
  });

  it('round-trips 100,000 random datagrams and never throws', () => {
    fc.assert(
      // Up to the 512-byte datagram limit and a little past it.
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 520, size: 'small' }), (datagram) => {
        const wire = encrypt(datagram);
        return (
          wire.length === datagram.length && same(decrypt(wire), datagram) && same(encrypt(decrypt(datagram)), datagram)
        );
      }),
      { numRuns: 100_000, seed: 22 },
    );
  }, 30_000);

  it("equals the step-by-step reference on 20,000 random datagrams, into a caller's buffer too", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 520 }), fc.nat(8), (datagram, offset) => {
        const into = new Uint8Array(offset + datagram.length);
        encryptInto(datagram, into, offset);
        const back = new Uint8Array(datagram.length);
        decryptInto(encrypt(datagram), back, 0);
        return (
          same(encrypt(datagram), reference(datagram, false)) &&
          same(decrypt(datagram), reference(datagram, true)) &&
          same(into.subarray(offset), encrypt(datagram)) &&
          same(back, datagram)
        );
      }),
      { numRuns: 20_000, seed: 2002 },
    );
  }, 30_000);

  it('handles the empty and the one-byte datagram', () => {
    expect(encrypt(new Uint8Array(0))).toEqual(new Uint8Array(0));
    expect(decrypt(new Uint8Array([5]))).toEqual(new Uint8Array([5]));
  });
});
