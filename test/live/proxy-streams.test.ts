// The proxy's pure parts: the cipher round trip it relies on
// to forward an untouched datagram byte for byte, and the indexed streams that
// make its random decisions depend on the packet order alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decrypt, encrypt } from '../../src/core/codec/index.js';
import { namedStream } from '../../src/core/engine/random.js';
import { IndexedStreams } from '../../src/live/proxy/indexed-streams.js';
import { OutstandingTracker } from '../../src/live/proxy/outstanding.js';
import { WireAnalyzer } from '../../src/analysis/capture/analyze.js';
import type { CaptureConnection } from '../../src/analysis/capture/bc-packets.js';
import { encodeDatagram } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';

describe('proxy cipher round trip', () => {
  it('encrypt(decrypt(x)) equals x for arbitrary bytes (so an unchanged datagram is forwarded as it came)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 700 }), (x) => {
        expect(Buffer.from(encrypt(decrypt(x))).equals(Buffer.from(x))).toBe(true);
        expect(Buffer.from(decrypt(encrypt(x))).equals(Buffer.from(x))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('IndexedStreams', () => {
  it('datagram n of a direction draws from namedStream(seed, "<name>#n"), however many draws other datagrams took', () => {
    const a = new IndexedStreams(7);
    const loss = a.stream('clientToServer.loss');
    a.setIndex(0);
    loss.next();
    loss.next();
    a.setIndex(5);
    const first = loss.next();
    const second = loss.next();
    const expected = namedStream(7, 'clientToServer.loss#5');
    expect([first, second]).toEqual([expected.next(), expected.next()]);

    // Another order of earlier datagrams (one drew nothing): datagram 5 decides the same.
    const b = new IndexedStreams(7);
    const lossB = b.stream('clientToServer.loss');
    b.setIndex(5);
    expect(lossB.next()).toBe(first);
  });

  it('a different seed gives different draws; a name taken twice is a wiring bug', () => {
    const a = new IndexedStreams(1).stream('x');
    const b = new IndexedStreams(2).stream('x');
    expect(a.next()).not.toBe(b.next());
    const s = new IndexedStreams(1);
    s.stream('y');
    expect(() => s.stream('y')).toThrow(/requested twice/);
  });
});

describe('OutstandingTracker', () => {
  const game = (seq: number, fragIndex: number | null = null): Message => ({
    type: 0x32,
    reliable: true,
    ordered: true,
    fragment: fragIndex !== null,
    seq,
    fragIndex,
    fragCount: fragIndex === 0 ? 2 : null,
    payload: new Uint8Array([1, 2, 3]),
  });
  const bytes = (messages: Message[]) => {
    const r = encodeDatagram({ peerId: 2, messages });
    if (!r.ok) throw new Error('encode');
    return r.bytes;
  };

  it('counts reliable messages until the other end ACKs them (fragments by index)', () => {
    const t = new OutstandingTracker();
    t.add('client', bytes([game(1), game(2, 0), game(2, 1)]), 3);
    expect(t.count('client')).toBe(3);
    t.add(
      'server',
      bytes([
        { type: 0x01, seq: 1, flags: 0, fragIndex: null },
        { type: 0x01, seq: 2, flags: 1, fragIndex: 1 },
      ]),
      2,
    );
    expect(t.count('client')).toBe(1);
    // An ACK from the same end does not clear its own messages.
    t.add('client', bytes([{ type: 0x01, seq: 2, flags: 1, fragIndex: 0 }]), 1);
    expect(t.count('client')).toBe(1);
    expect(t.count('server')).toBe(0);
  });
});

describe('WireAnalyzer.live', () => {
  it('is a read-only snapshot: finish() gives the same figures with or without live() calls between datagrams', () => {
    const connection = (): CaptureConnection => ({
      index: 1,
      server: { key: 1, ip: 0x7f000001, port: 22101, label: '127.0.0.1:22101' },
      client: { key: 2, ip: 0x7f000001, port: 5000, label: '127.0.0.1:5000' },
      slot: null,
      startSeen: true,
      firstUs: 0,
      lastUs: 0,
    });
    const datagrams: Array<[number, 'client' | 'server', Uint8Array]> = [];
    const enc = (peerId: number, messages: Message[]) => {
      const r = encodeDatagram({ peerId, messages });
      if (!r.ok) throw new Error('encode');
      return r.bytes;
    };
    const msg = (seq: number): Message => ({
      type: 0x32,
      reliable: true,
      ordered: true,
      fragment: false,
      seq,
      fragIndex: null,
      fragCount: null,
      payload: Uint8Array.of(9),
    });
    for (let i = 0; i < 30; i++) {
      datagrams.push([i * 100_000, 'client', enc(0xff, [msg(i % 10)])]); // seqs 0..9 sent three times: re-sends
      datagrams.push([
        i * 100_000 + 50_000,
        'server',
        enc(2, [{ type: 0x01, seq: i % 10, flags: 0, fragIndex: null }]),
      ]);
    }
    const a = new WireAnalyzer();
    const b = new WireAnalyzer();
    const ca = connection();
    const cb = connection();
    let last = null;
    for (const [t, from, bytes] of datagrams) {
      a.add(ca, from, t, bytes.length, bytes);
      b.add(cb, from, t, bytes.length, bytes);
      last = b.live();
    }
    expect(last?.[0].client.retransmissions).toBe(20);
    expect(last?.[0].server.datagrams).toBe(30);
    expect(JSON.stringify(b.finish())).toBe(JSON.stringify(a.finish()));
  });
});
