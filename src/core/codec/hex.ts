// Hex text <-> bytes, for the CLI and for tests.

export type HexResult = { ok: true; bytes: Uint8Array } | { ok: false; offset: number; reason: string };

/**
 * Parses hex with or without separators: "01 02 0a", "01020A", "0x01,0x02".
 * `offset` in an error is the character position in the joined input.
 */
export function parseHex(text: string): HexResult {
  const digits: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === ',' || c === ':' || c === '-') {
      i++;
      continue;
    }
    if (
      c === '0' &&
      (text[i + 1] === 'x' || text[i + 1] === 'X') &&
      isHexDigit(text[i + 2]) &&
      (digits.length & 1) === 0
    ) {
      i += 2;
      continue;
    }
    if (!isHexDigit(c)) return { ok: false, offset: i, reason: `"${c}" is not a hex digit` };
    digits.push(parseInt(c, 16));
    i++;
  }
  if (digits.length === 0) return { ok: false, offset: 0, reason: 'no hex digits' };
  if (digits.length % 2 !== 0)
    return { ok: false, offset: text.length, reason: `odd number of hex digits (${digits.length})` };
  const bytes = new Uint8Array(digits.length / 2);
  for (let b = 0; b < bytes.length; b++) bytes[b] = (digits[2 * b] << 4) | digits[2 * b + 1];
  return { ok: true, bytes };
}

function isHexDigit(c: string | undefined): boolean {
  return c !== undefined && /^[0-9a-fA-F]$/.test(c);
}

/** "01 02 0A" (separator configurable). */
export function toHex(bytes: Uint8Array, separator = ' '): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    if (i > 0) out += separator;
    out += HEX[bytes[i]];
  }
  return out;
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0').toUpperCase());
