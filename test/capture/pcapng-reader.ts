// A tiny pcapng reader for the tests of the capture's parts; every block's framing is
// checked as it is read.
import { expect } from 'vitest';
import { parseHex } from '../../src/core/codec/index.js';

export interface Block {
  type: number;
  body: Buffer;
  /** Options after the fixed part of the body, as [code, value]. */
  options: Array<[number, Buffer]>;
}

export interface Epb {
  interfaceId: number;
  timestamp: bigint;
  data: Buffer;
  originalLength: number;
  comments: string[];
}

export function readBlocks(file: Buffer): Block[] {
  const blocks: Block[] = [];
  let at = 0;
  while (at < file.length) {
    expect(file.length - at).toBeGreaterThanOrEqual(12);
    const type = file.readUInt32LE(at);
    const total = file.readUInt32LE(at + 4);
    expect(total % 4, `block at ${at}: length ${total} is a multiple of 4`).toBe(0);
    expect(at + total).toBeLessThanOrEqual(file.length);
    expect(file.readUInt32LE(at + total - 4), `block at ${at}: trailing length`).toBe(total);
    const body = file.subarray(at + 8, at + total - 4);
    const fixed =
      type === 0x0a0d0d0a ? 16 : type === 1 ? 8 : type === 6 ? 20 + pad4(body.readUInt32LE(12)) : body.length;
    blocks.push({ type, body, options: readOptions(body.subarray(fixed)) });
    at += total;
  }
  return blocks;
}

function readOptions(bytes: Buffer): Array<[number, Buffer]> {
  const options: Array<[number, Buffer]> = [];
  let at = 0;
  while (at < bytes.length) {
    const code = bytes.readUInt16LE(at);
    const length = bytes.readUInt16LE(at + 2);
    if (code === 0) {
      expect(length).toBe(0);
      expect(at + 4, 'opt_endofopt ends the options').toBe(bytes.length);
      break;
    }
    const value = bytes.subarray(at + 4, at + 4 + length);
    // Padding is zeros.
    expect([...bytes.subarray(at + 4 + length, at + 4 + pad4(length))].every((b) => b === 0)).toBe(true);
    options.push([code, value]);
    at += 4 + pad4(length);
  }
  return options;
}

export function packetsOf(blocks: Block[]): Epb[] {
  return blocks
    .filter((b) => b.type === 6)
    .map((b) => {
      const captured = b.body.readUInt32LE(12);
      const data = b.body.subarray(20, 20 + captured);
      expect(
        [...b.body.subarray(20 + captured, 20 + pad4(captured))].every((x) => x === 0),
        'packet padding is zeros',
      ).toBe(true);
      return {
        interfaceId: b.body.readUInt32LE(0),
        timestamp: (BigInt(b.body.readUInt32LE(4)) << 32n) | BigInt(b.body.readUInt32LE(8)),
        data,
        originalLength: b.body.readUInt32LE(16),
        comments: b.options.filter(([code]) => code === 1).map(([, v]) => v.toString('utf8')),
      };
    });
}

const pad4 = (n: number) => (n + 3) & ~3;

/** Hex literals as bytes, for the datagrams built here. */
export const hex = (text: string) => {
  const r = parseHex(text);
  if (!r.ok) throw new Error(r.reason);
  return r.bytes;
};
