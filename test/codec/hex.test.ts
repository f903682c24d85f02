// parseHex / toHex: the text form used by `bcsim decode` and by the tests.
import { describe, expect, it } from 'vitest';
import { parseHex, toHex } from '../../src/core/codec/index.js';
import { arr } from './helpers.js';

function parsed(text: string): number[] {
  const r = parseHex(text);
  if (!r.ok) throw new Error(`expected "${text}" to parse, got: ${r.reason} at ${r.offset}`);
  return arr(r.bytes);
}

function rejected(text: string): { offset: number; reason: string } {
  const r = parseHex(text);
  if (r.ok) throw new Error(`expected "${text}" to be rejected, got ${toHex(r.bytes)}`);
  return { offset: r.offset, reason: r.reason };
}

describe('parseHex accepts', () => {
  it('space-separated bytes', () => {
    expect(parsed('01 02')).toEqual([0x01, 0x02]);
  });

  it('packed digits', () => {
    expect(parsed('0102')).toEqual([0x01, 0x02]);
    expect(parsed('32 1B80')).toEqual([0x32, 0x1b, 0x80]);
  });

  it('several CLI arguments joined with spaces (as `bcsim decode 01 02 321B80` does)', () => {
    expect(parsed(['01', '02', '321B80'].join(' '))).toEqual([0x01, 0x02, 0x32, 0x1b, 0x80]);
    expect(parsed(['01 02', '03'].join(' '))).toEqual([1, 2, 3]);
  });

  it('lowercase and mixed case', () => {
    expect(parsed('ab cd ef')).toEqual([0xab, 0xcd, 0xef]);
    expect(parsed('aB Cd')).toEqual([0xab, 0xcd]);
  });

  it('0x-prefixed, comma-separated', () => {
    expect(parsed('0x01,0x02')).toEqual([0x01, 0x02]);
    expect(parsed('0x01, 0x02, 0XfF')).toEqual([0x01, 0x02, 0xff]);
  });

  it('tabs, newlines, colons and dashes as separators', () => {
    expect(parsed('01\t02\n03\r\n04:05-06')).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a 0 that is the second digit of a byte is not mistaken for a 0x prefix', () => {
    // "10" then "0x0B": the prefix is recognised only at a byte boundary.
    expect(parsed('10 0x0B')).toEqual([0x10, 0x0b]);
    expect(parsed('000x01')).toEqual([0x00, 0x01]);
    // Mid-byte, "0x" is a digit 0 followed by a bad "x": "10x0B" fails at the x, not at the end.
    expect(rejected('10x0B').offset).toBe(2);
  });

  it('a real datagram', () => {
    expect(parsed('02 03 05 0A C0 02 00 02 0A 0A 0A EF 01 27 00 00 01 28 00 00')).toHaveLength(20);
  });
});

describe('parseHex rejects, with the character offset', () => {
  it('"zz" at offset 0', () => {
    expect(rejected('zz').offset).toBe(0);
  });

  it('a bad character later in the text, at its position', () => {
    expect(rejected('01 02 zz').offset).toBe(6);
    expect(rejected('0102g3').offset).toBe(4);
    // In joined CLI arguments the offset counts the joining spaces.
    expect(rejected(['01', '02', 'q1'].join(' ')).offset).toBe(6);
  });

  it('an odd number of digits, at the end of the text', () => {
    const r = rejected('01 0');
    expect(r.offset).toBe(4);
    expect(r.reason).toMatch(/odd/);
    expect(rejected('123').offset).toBe(3);
  });

  it('empty input and separators only', () => {
    expect(rejected('')).toMatchObject({ offset: 0 });
    expect(rejected('  , ').offset).toBe(0);
    expect(rejected('').reason).toMatch(/no hex digits/);
  });

  it('a bare "0x" with no digit after it', () => {
    // "0" is taken as a digit, then "x" is not hex.
    expect(rejected('0x').offset).toBe(1);
  });
});

describe('toHex', () => {
  it('uppercase, two digits per byte, space-separated by default', () => {
    expect(toHex(Uint8Array.from([0x01, 0x0a, 0xff, 0x00]))).toBe('01 0A FF 00');
  });

  it('custom separator, including none', () => {
    expect(toHex(Uint8Array.from([0x32, 0x1b, 0x80]), '')).toBe('321B80');
    expect(toHex(Uint8Array.from([0x32, 0x1b]), ':')).toBe('32:1B');
  });

  it('empty input gives the empty string', () => {
    expect(toHex(new Uint8Array(0))).toBe('');
  });

  it('round-trips every byte value, with every separator parseHex knows', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (const sep of [' ', '', ',', ':', '-', '\n']) expect(parsed(toHex(all, sep))).toEqual(arr(all));
    expect(parsed(toHex(all).toLowerCase())).toEqual(arr(all));
  });

  it('parseHex(toHex(x)) is the identity for non-empty x; parseHex(toHex(empty)) is refused', () => {
    const x = Uint8Array.from([0xde, 0xad, 0xbe, 0xef]);
    expect(parsed(toHex(x))).toEqual(arr(x));
    expect(toHex(Uint8Array.from(parsed('de ad be ef')))).toBe('DE AD BE EF');
    expect(parseHex(toHex(new Uint8Array(0))).ok).toBe(false);
  });
});
