// Seeded fuzzing of decodeDatagram: random and mutated datagrams never throw,
// every reported offset is in range, and every decoded message lies inside the input.
import { describe, expect, it } from 'vitest';
import { decodeDatagram, encodeDatagram } from '../../src/core/codec/index.js';
import type { DataType, DecodeErrorCode, Located, Message } from '../../src/core/codec/index.js';
import { namedStream } from '../../src/core/engine/random.js';
import type { RandomStream } from '../../src/core/engine/random.js';
import { arr, okBytes } from './helpers.js';

const SEED = 20240611;
const ITERATIONS = 120_000;

class Rng {
  constructor(private readonly stream: RandomStream) {}
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.stream.next() * n);
  }
  /** Integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.stream.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.int(256);
    return out;
  }
}

const DATA_TYPES: readonly DataType[] = [0x00, 0x02, 0x03, 0x04, 0x05, 0x32];

function randomMessage(rng: Rng, maxPayload: number): Message {
  if (rng.chance(0.35)) {
    const flags = rng.chance(0.8) ? rng.int(4) : rng.int(256);
    return { type: 0x01, seq: rng.int(0x10000), flags, fragIndex: flags & 1 ? rng.int(256) : null };
  }
  const type = rng.chance(0.6) ? 0x32 : rng.pick(DATA_TYPES);
  const reliable = rng.chance(0.6);
  const fragment = type === 0x32 && rng.chance(0.3);
  const fragIndex = fragment ? (rng.chance(0.5) ? 0 : rng.int(256)) : null;
  return {
    type,
    reliable,
    ordered: rng.chance(0.3),
    fragment,
    seq: reliable ? rng.int(0x10000) : null,
    fragIndex,
    fragCount: fragIndex === 0 ? rng.int(256) : null,
    payload: rng.bytes(rng.chance(0.1) ? rng.int(maxPayload + 1) : rng.int(Math.min(24, maxPayload) + 1)),
  };
}

/** A valid encoded datagram of 0..12 messages, at most 512 bytes. */
function randomValidDatagram(rng: Rng): Uint8Array {
  const messages: Message[] = [];
  let room = 510;
  const count = rng.int(13);
  for (let i = 0; i < count && room >= 8; i++) {
    const m = randomMessage(rng, Math.max(0, room - 8));
    const bytes = encodeDatagram({ peerId: 0, messages: [m] });
    if (!bytes.ok || bytes.bytes.length - 2 > room) continue;
    messages.push(m);
    room -= bytes.bytes.length - 2;
  }
  return okBytes(encodeDatagram({ peerId: rng.pick([0x01, 0x02, 0x03, 0xff, rng.int(256)]), messages }));
}

/** Offsets where a message starts in a valid datagram (walking the known-good structure). */
function messageStarts(bytes: Uint8Array): number[] {
  const r = decodeDatagram(bytes);
  return r.ok ? r.datagram.messages.map((m) => m.offset) : [];
}

const EXTREME_WORDS = [
  0x0000, 0xffff, 0x1fff, 0x3fff, 0x2000, 0x8000, 0xa000, 0x8005, 0xa006, 0x0003, 0x0001, 0x01ff, 0x0200,
];

function mutate(rng: Rng, input: Uint8Array): Uint8Array {
  let bytes = Uint8Array.from(input);
  const rounds = rng.range(1, 3);
  for (let r = 0; r < rounds; r++) {
    const op = rng.int(8);
    if (op === 0 && bytes.length > 0) {
      // Flip 1–4 bits.
      for (let k = rng.range(1, 4); k > 0; k--) bytes[rng.int(bytes.length)] ^= 1 << rng.int(8);
    } else if (op === 1) {
      // Truncate.
      bytes = bytes.slice(0, rng.int(bytes.length + 1));
    } else if (op === 2) {
      // Insert 1–8 random bytes.
      const at = rng.int(bytes.length + 1);
      const extra = rng.bytes(rng.range(1, 8));
      const out = new Uint8Array(bytes.length + extra.length);
      out.set(bytes.subarray(0, at));
      out.set(extra, at);
      out.set(bytes.subarray(at), at + extra.length);
      bytes = out;
    } else if (op === 3 && bytes.length > 0) {
      // Delete 1–8 bytes.
      const at = rng.int(bytes.length);
      const n = Math.min(rng.range(1, 8), bytes.length - at);
      bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + n)]);
    } else if (op === 4) {
      // Overwrite a message's flags_len (or an ACK's seq) with an extreme or off-by-one value.
      const starts = messageStarts(bytes);
      if (starts.length > 0) {
        const at = rng.pick(starts);
        if (at + 2 < bytes.length) {
          const old = bytes[at + 1] | (bytes[at + 2] << 8);
          const word = rng.chance(0.5) ? rng.pick(EXTREME_WORDS) : (old + rng.range(-3, 3)) & 0xffff;
          bytes[at + 1] = word & 0xff;
          bytes[at + 2] = word >>> 8;
        }
      }
    } else if (op === 5 && bytes.length > 1) {
      // msg_count extremes and off-by-one.
      bytes[1] = rng.pick([0, 1, 0xff, (bytes[1] + 1) & 0xff, (bytes[1] - 1) & 0xff]);
    } else if (op === 6) {
      // Replace a type byte (known, unknown, or an ACK flags byte).
      const starts = messageStarts(bytes);
      if (starts.length > 0) {
        const at = rng.pick(starts);
        if (bytes[at] === 0x01 && at + 3 < bytes.length && rng.chance(0.5)) bytes[at + 3] ^= 0x01;
        else bytes[at] = rng.pick([0x00, 0x01, 0x02, 0x05, 0x06, 0x31, 0x32, 0x33, 0xff, rng.int(256)]);
      }
    } else {
      // Append trailing garbage.
      bytes = Uint8Array.from([...bytes, ...rng.bytes(rng.range(1, 4))]);
    }
  }
  return bytes;
}

/** Random bytes shaped like a datagram: a count, then known type bytes with random fields. */
function randomLookalike(rng: Rng): Uint8Array {
  const out = [rng.int(256), rng.int(6)];
  for (let i = rng.int(6); i > 0; i--) {
    out.push(rng.pick([0x00, 0x01, 0x01, 0x05, 0x32, 0x32, 0x32]));
    const word = rng.chance(0.5) ? rng.int(40) | (rng.pick([0x00, 0x80, 0xa0, 0x20, 0xc0]) << 8) : rng.int(0x10000);
    out.push(word & 0xff, word >>> 8);
    for (let k = rng.int(40); k > 0; k--) out.push(rng.int(256));
  }
  return Uint8Array.from(out);
}

/** Checks one input; returns the outcome label ("ok" or an error code). */
function check(bytes: Uint8Array): 'ok' | DecodeErrorCode {
  let r: ReturnType<typeof decodeDatagram>;
  try {
    r = decodeDatagram(bytes);
  } catch (e) {
    throw new Error(`decodeDatagram threw on ${Buffer.from(bytes).toString('hex')}: ${String(e)}`);
  }
  const fail = (what: string): never => {
    throw new Error(`${what} for input ${Buffer.from(bytes).toString('hex')}`);
  };
  const messages: readonly Located[] = r.ok ? r.datagram.messages : r.partial.messages;
  let pos = 2;
  for (const m of messages) {
    if (m.offset !== pos) fail(`message offset ${m.offset} expected ${pos}`);
    if (m.size <= 0 || m.offset + m.size > bytes.length)
      fail(`message [${m.offset}, +${m.size}) outside ${bytes.length} bytes`);
    if (m.type !== 0x01) {
      const end = m.payload.byteOffset - bytes.byteOffset + m.payload.length;
      if (end !== m.offset + m.size) fail(`payload ends at ${end}, message at ${m.offset + m.size}`);
    }
    pos += m.size;
  }
  if (r.ok) {
    if (pos !== bytes.length) fail(`ok decode covers ${pos} of ${bytes.length} bytes`);
    if (r.datagram.messageCount !== messages.length) fail('messageCount differs from messages decoded');
    return 'ok';
  }
  const { offset, code } = r.error;
  if (!(offset >= 0 && offset <= bytes.length)) fail(`error offset ${offset} outside [0, ${bytes.length}]`);
  if (code === 'truncated-header') {
    if (bytes.length >= 2 || offset !== bytes.length) fail(`truncated-header at ${offset} on ${bytes.length} bytes`);
  } else if (offset < pos) {
    fail(`error offset ${offset} inside the header or an already decoded message (ends ${pos})`);
  }
  return code;
}

describe('decoder fuzz (seeded)', () => {
  it(`${ITERATIONS} random and mutated datagrams: no throw, offsets in range`, () => {
    const gen = new Rng(namedStream(SEED, 'codec.fuzz.generate'));
    const pool: Uint8Array[] = Array.from({ length: 400 }, () => randomValidDatagram(gen));
    const outcomes = new Map<string, number>();
    const bySource = { random: 0, lookalike: 0, mutated: 0, valid: 0 };
    let reencoded = 0;

    for (let i = 0; i < ITERATIONS; i++) {
      const kind = gen.int(10);
      let bytes: Uint8Array;
      if (kind === 0) {
        bytes = gen.bytes(gen.chance(0.05) ? gen.int(3) : gen.int(600));
        bySource.random++;
      } else if (kind <= 2) {
        bytes = randomLookalike(gen);
        bySource.lookalike++;
      } else if (kind === 3) {
        bytes = gen.pick(pool);
        bySource.valid++;
      } else {
        bytes = mutate(gen, gen.pick(pool));
        bySource.mutated++;
      }
      const outcome = check(bytes);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      // Every successful decode of at most 512 bytes re-encodes to the same bytes.
      if (outcome === 'ok' && bytes.length <= 512 && i % 4 === 0) {
        const d = decodeDatagram(bytes);
        if (d.ok) {
          const re = encodeDatagram({ peerId: d.datagram.peerId, messages: d.datagram.messages });
          if (!re.ok || arr(re.bytes).join() !== arr(bytes).join()) {
            throw new Error(`re-encode differs for ${Buffer.from(bytes).toString('hex')}`);
          }
          reencoded++;
        }
      }
    }

    const total = [...outcomes.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(ITERATIONS);
    expect(bySource.mutated).toBeGreaterThan(ITERATIONS / 2);
    expect(bySource.random).toBeGreaterThan(ITERATIONS / 20);
    // Not vacuous: many successes, many failures, and every decode error kind was reached.
    const ok = outcomes.get('ok') ?? 0;
    expect(ok).toBeGreaterThan(ITERATIONS / 10);
    expect(total - ok).toBeGreaterThan(ITERATIONS / 4);
    const codes = [...outcomes.keys()].filter((k) => k !== 'ok').sort();
    expect(codes).toEqual([
      'length-below-header',
      'length-past-end',
      'missing-messages',
      'trailing-bytes',
      'truncated-header',
      'truncated-message',
      'unknown-type',
    ]);
    for (const code of codes) expect(outcomes.get(code)).toBeGreaterThan(50);
    expect(reencoded).toBeGreaterThan(1000);
  });

  it('is deterministic: the same seed gives the same inputs', () => {
    const a = new Rng(namedStream(SEED, 'codec.fuzz.generate'));
    const b = new Rng(namedStream(SEED, 'codec.fuzz.generate'));
    for (let i = 0; i < 50; i++)
      expect(arr(mutate(a, randomValidDatagram(a)))).toEqual(arr(mutate(b, randomValidDatagram(b))));
  });

  it('decodes inputs far over 512 bytes without trouble (up to 64 KiB of noise)', () => {
    const rng = new Rng(namedStream(SEED, 'codec.fuzz.large'));
    for (let i = 0; i < 200; i++) check(rng.bytes(rng.range(513, 65536)));
  });
});
