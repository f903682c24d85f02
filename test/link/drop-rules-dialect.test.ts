// Drop rules on a datagram in a reimplementation's wire form (docs/sources.md 30),
// as the proxy relays them: matched on the messages as read, and a cut keeps
// the other messages' own bytes (never re-encoded into the stock form).
import { describe, expect, it } from 'vitest';
import { parseHex, toHex } from '../../src/core/codec/index.js';
import { micros } from '../../src/core/engine/index.js';
import { DropRules } from '../../src/model/link/drop-rules.js';
import type { DropRule } from '../../src/model/link/config.js';

const rule = (match: DropRule['match'], scope: DropRule['scope'] = 'message'): DropRule => ({
  match,
  scope,
  probability: 1,
  fromMs: null,
  untilMs: null,
  firstN: null,
});

function bytes(hex: string): Uint8Array {
  const parsed = parseHex(hex);
  if (!parsed.ok) throw new Error(hex);
  return parsed.bytes;
}

describe('drop rules on the wire forms of docs/sources.md 30', () => {
  it('a type-0x06 Disconnect matches type "disconnect"; the ACK beside it keeps its flags 0x80', () => {
    const outcome = new DropRules([rule({ type: 'disconnect' })], null).apply(
      bytes('02 02 01 04 00 80 06 02'),
      [-1, -1],
      micros(0),
    );
    expect(outcome.kind).toBe('rewrite');
    if (outcome.kind === 'rewrite')
      expect([toHex(outcome.bytes), outcome.removedIndexes]).toEqual(['02 01 01 04 00 80', [1]]);
  });

  it('cutting the ACK leaves the two-byte keepalive as sent, not its stock 00 03 00', () => {
    const outcome = new DropRules([rule({ type: 'ack' })], null).apply(
      bytes('01 02 01 00 00 02 00 02'),
      [-1, -1],
      micros(0),
    );
    expect(outcome.kind === 'rewrite' && toHex(outcome.bytes)).toBe('01 01 00 02');
  });

  it('a stock datagram is re-encoded in the stock form; bytes that read neither way pass untouched', () => {
    const stock = new DropRules([rule({ type: 'ack' })], null).apply(
      bytes('01 02 01 00 00 02 00 03 00'),
      [-1, -1],
      micros(0),
    );
    expect(stock.kind === 'rewrite' && toHex(stock.bytes)).toBe('01 01 00 03 00');
    expect(
      new DropRules([rule({ type: 'ack' }, 'datagram')], null).apply(bytes('01 01 07 02'), [-1], micros(0)).kind,
    ).toBe('pass');
  });
});
