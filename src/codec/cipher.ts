// AlbyRules, the datagram cipher (DECISIONS.md 22): PC1 with the 80-bit key
// "AlbyRules!" in 16-bit arithmetic. Byte 0 (the peer id) stays in the clear,
// the state resets for every datagram, and both directions feed the plaintext
// back into the key. Pure, allocation of the result only, never throws.

/** The key as five big-endian 16-bit words: "Al", "by", "Ru", "le", "s!". */
const KEY_WORDS = [0x416c, 0x6279, 0x5275, 0x6c65, 0x7321] as const;

/** A new datagram with bytes 1.. encrypted; byte 0 is copied as it is. */
export function encrypt(plain: Uint8Array): Uint8Array {
  return crypt(plain, false);
}

/** A new datagram with bytes 1.. decrypted; byte 0 is copied as it is. */
export function decrypt(wire: Uint8Array): Uint8Array {
  return crypt(wire, true);
}

function crypt(input: Uint8Array, decrypting: boolean): Uint8Array {
  const out = new Uint8Array(input.length);
  if (input.length === 0) return out;
  out[0] = input[0];
  // Every key byte is XORed with each plaintext byte in turn, so each key word is
  // the original word XOR (fed << 8 | fed), fed being the XOR of the plaintext so far.
  let fed = 0;
  let x = 0;
  let s = 0;
  for (let n = 1; n < input.length; n++) {
    const feedWord = (fed << 8) | fed;
    let previous = 0;
    let acc = 0;
    for (let i = 0; i < 5; i++) {
      let w = (KEY_WORDS[i] ^ feedWord) ^ previous; // XORed with the already updated w[i-1]
      const c1 = Math.imul(x + i, 0x4e35) & 0xffff;
      const c2 = Math.imul(w, 0x015a) & 0xffff;
      const d = (c1 + c2 + s) & 0xffff;
      s = c2;
      w = (Math.imul(w, 0x4e35) + 1) & 0xffff;
      x = d;
      acc ^= w ^ d;
      previous = w;
    }
    const byte = input[n] ^ ((acc >> 8) ^ (acc & 0xff));
    out[n] = byte;
    fed ^= decrypting ? byte : input[n];
  }
  return out;
}
