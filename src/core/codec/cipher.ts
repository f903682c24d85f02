// AlbyRules, the datagram cipher (docs/sources.md 22): PC1 with the 80-bit key
// "AlbyRules!" in 16-bit arithmetic. Byte 0 (the peer id) stays in the clear,
// the state resets for every datagram, and both directions feed the plaintext
// back into the key. Pure, never throws. test/codec/cipher.test.ts holds the
// step-by-step form of docs/sources.md 22 as the oracle this one must equal.
//
// Why this is the same function, in a quarter of the work per byte: every key
// byte is XORed with each plaintext byte, so each key word is the original word
// XOR F, F = (fed << 8 | fed), fed being the XOR of the plaintext so far. Per
// byte, round i (0..4) computes
//   w_i = (K_i ^ F) ^ w'_{i-1},  c2_i = w_i * 0x015A,  w'_i = w_i * 0x4E35 + 1,
//   d_i = (x_i + i) * 0x4E35 + c2_i + s_i,  x_{i+1} = d_i,  s_{i+1} = c2_i,
//   acc ^= w'_i ^ d_i
// (all mod 2^16). The w chain depends on fed alone, so c2_i and the XOR of the
// w'_i are a 256-entry table. And d_i is linear in the byte's incoming x and s:
//   d_i = M^(i+1)·x + M^i·s + E_i(fed),  E_0 = c2_0,  E_i = M·E_{i-1} + M·i + c2_i + c2_{i-1},
// with M = 0x4E35, so the five rounds become five independent multiply-adds.

const KEY_WORDS = [0x416c, 0x6279, 0x5275, 0x6c65, 0x7321] as const;
const M = 0x4e35;
const STRIDE = 8;
/** Per fed byte: E_0..E_4, the XOR of the w'_i, and c2_4 (the next byte's s). */
const TABLE = buildTable();
const P = powers(1); // M^(i+1)
const Q = powers(0); // M^i

function buildTable(): Uint16Array {
  const table = new Uint16Array(256 * STRIDE);
  for (let fed = 0; fed < 256; fed++) {
    const feedWord = (fed << 8) | fed;
    const c2: number[] = [];
    let previous = 0;
    let wx = 0;
    for (let i = 0; i < 5; i++) {
      let w = KEY_WORDS[i] ^ feedWord ^ previous;
      c2.push(Math.imul(w, 0x015a) & 0xffff);
      w = (Math.imul(w, M) + 1) & 0xffff;
      wx ^= w;
      previous = w;
    }
    let e = c2[0];
    table[fed * STRIDE] = e;
    for (let i = 1; i < 5; i++) {
      e = (Math.imul(e, M) + Math.imul(M, i) + c2[i] + c2[i - 1]) & 0xffff;
      table[fed * STRIDE + i] = e;
    }
    table[fed * STRIDE + 5] = wx;
    table[fed * STRIDE + 6] = c2[4];
  }
  return table;
}

function powers(first: number): number[] {
  const out: number[] = [];
  let p = 1;
  for (let i = 0; i < first; i++) p = Math.imul(p, M) & 0xffff;
  for (let i = 0; i < 5; i++) {
    out.push(p);
    p = Math.imul(p, M) & 0xffff;
  }
  return out;
}

/** Writes `input` encrypted (byte 0 in the clear) at `out[offset..]`, for hot paths that own a buffer. */
export function encryptInto(input: Uint8Array, out: Uint8Array, offset: number): void {
  crypt(input, out, offset, false);
}

/** Writes `input` decrypted at `out[offset..]`. */
export function decryptInto(input: Uint8Array, out: Uint8Array, offset: number): void {
  crypt(input, out, offset, true);
}

/** A new datagram with bytes 1.. encrypted; byte 0 is copied as it is. */
export function encrypt(plain: Uint8Array): Uint8Array {
  const out = new Uint8Array(plain.length);
  crypt(plain, out, 0, false);
  return out;
}

/** A new datagram with bytes 1.. decrypted; byte 0 is copied as it is. */
export function decrypt(wire: Uint8Array): Uint8Array {
  const out = new Uint8Array(wire.length);
  crypt(wire, out, 0, true);
  return out;
}

function crypt(input: Uint8Array, out: Uint8Array, offset: number, decrypting: boolean): void {
  const n = input.length;
  if (n === 0) return;
  out[offset] = input[0];
  const t = TABLE;
  const p0 = P[0],
    p1 = P[1],
    p2 = P[2],
    p3 = P[3],
    p4 = P[4];
  const q1 = Q[1],
    q2 = Q[2],
    q3 = Q[3],
    q4 = Q[4];
  let fed = 0;
  let x = 0;
  let s = 0;
  // Only the low 16 bits of x and of each d_i matter (the products are mod 2^16 and the
  // key stream reads acc's low 16 bits), so the sums stay unmasked int32s.
  for (let k = 1; k < n; k++) {
    const b = fed * STRIDE;
    const d4 = (Math.imul(x, p4) + Math.imul(s, q4) + t[b + 4]) | 0;
    const acc =
      t[b + 5] ^
      ((Math.imul(x, p0) + s + t[b]) | 0) ^
      ((Math.imul(x, p1) + Math.imul(s, q1) + t[b + 1]) | 0) ^
      ((Math.imul(x, p2) + Math.imul(s, q2) + t[b + 2]) | 0) ^
      ((Math.imul(x, p3) + Math.imul(s, q3) + t[b + 3]) | 0) ^
      d4;
    s = t[b + 6];
    x = d4;
    const inputByte = input[k];
    const outputByte = (inputByte ^ (acc >>> 8) ^ acc) & 0xff;
    out[offset + k] = outputByte;
    fed ^= decrypting ? outputByte : inputByte;
  }
}
