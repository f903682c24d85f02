// The wall-clock driver on a fake wall source: it is the
// engine's Scheduler, events run in (time, insertion) order once the wall
// clock reaches them, `now` inside a callback is its due time, and lateness
// is measured against the wall.
import { describe, expect, it } from 'vitest';
import { micros } from '../../src/core/engine/index.js';
import { LatenessRing, WallClock } from '../../src/live/wall-clock.js';
import { RemoteBridge } from '../../src/live/peer/remote-bridge.js';
import { OwnMessages } from '../../src/live/peer/own-messages.js';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { joinSteps } from '../../src/model/traffic/index.js';
import type { Delivery } from '../../src/model/transport/receive-channel.js';

function fakeWall() {
  let us = 0;
  return { source: () => micros(us), set: (t: number) => (us = t) };
}

/** A clock on a fake wall that watches fake event-loop turns (endTurn runs them), with a 95 ms tick. */
function watchedClock() {
  const wall = fakeWall();
  const turns: Array<() => void> = [];
  const clock = new WallClock(
    wall.source,
    () => {},
    (fn) => turns.push(fn),
  );
  const endTurn = () => turns.splice(0).forEach((fn) => fn());
  const tick = clock.at(micros(95_000), () => clock.reschedule(tick, micros(clock.now + 95_000)));
  return { wall, turns, clock, endTurn };
}

describe('WallClock', () => {
  it('runs nothing before the wall reaches it, then every due event in order, each seeing its due time', () => {
    const wall = fakeWall();
    const clock = new WallClock(wall.source);
    const seen: string[] = [];
    clock.at(micros(2_000), () => seen.push(`b@${clock.now}`));
    clock.at(micros(1_000), () => seen.push(`a@${clock.now}`));
    clock.at(micros(2_000), () => seen.push(`c@${clock.now}`));
    clock.at(micros(9_000), () => seen.push(`late@${clock.now}`));
    wall.set(500);
    clock.catchUp();
    expect(seen).toEqual([]);
    expect(clock.now).toBe(500);
    wall.set(2_300);
    clock.catchUp();
    expect(seen).toEqual(['a@1000', 'b@2000', 'c@2000']);
    // Outside a callback, now is the wall time: a socket read dates its datagram with it.
    expect(clock.now).toBe(2_300);
    const lateness = clock.dispatchLateness.figures();
    expect(lateness.count).toBe(3);
    expect(lateness.max).toBe(1_300);
    clock.stop();
  });

  it('a timer scheduled from a callback at a time already passed runs in the same catch-up; cancel and reschedule work', () => {
    const wall = fakeWall();
    const clock = new WallClock(wall.source);
    const seen: number[] = [];
    const periodic = clock.at(micros(100), () => {
      seen.push(clock.now);
      // Periodic loops reschedule from the due time, so they do not drift with the lateness.
      if (seen.length < 5) clock.reschedule(periodic, micros(clock.now + 100));
    });
    const cancelled = clock.at(micros(150), () => seen.push(-1));
    expect(clock.cancel(cancelled)).toBe(true);
    wall.set(1_000);
    clock.catchUp();
    expect(seen).toEqual([100, 200, 300, 400, 500]);
    clock.stop();
  });

  it('after a stall, what fell due runs once at the wall time: a periodic loop and a re-send do not burst', () => {
    const wall = fakeWall();
    const clock = new WallClock(wall.source);
    const ticks: number[] = [];
    const resends: number[] = [];
    const tick = clock.at(micros(95_000), () => {
      ticks.push(clock.now);
      clock.reschedule(tick, micros(clock.now + 95_000));
    });
    // A message re-sent every 2 s, as the stock retransmit interval (docs/sources.md 11).
    const resend = clock.at(micros(2_000_000), () => {
      resends.push(clock.now);
      clock.reschedule(resend, micros(clock.now + 2_000_000));
    });
    wall.set(100_000);
    clock.catchUp();
    expect([ticks, clock.stalls.count]).toEqual([[95_000], 0]);
    expect(clock.arrivedFromUs()).toBe(100_000);
    // The process is stopped for 5 s: the tick due at 190 ms is 4.91 s late.
    wall.set(5_100_000);
    clock.catchUp();
    expect(ticks).toEqual([95_000, 5_100_000]);
    expect(resends).toEqual([5_100_000]);
    expect(clock.stalls).toEqual({ count: 1, longestUs: 4_910_000, totalUs: 4_910_000 });
    // A datagram read now may have waited since the stall began; one read well after, not.
    expect(clock.arrivedFromUs()).toBe(190_000);
    // A slow drain: reads past the first 250 ms still drain while each comes within 10 ms of the last.
    for (let t = 5_300_000; t <= 5_400_000; t += 9_000) {
      wall.set(t);
      clock.catchUp();
      expect(clock.arrivedFromUs()).toBe(190_000);
    }
    // 20 ms with no read: the queue was empty; reads from now on are dated by when they came.
    wall.set(5_425_000);
    clock.catchUp();
    expect(clock.arrivedFromUs()).toBe(5_425_000);
    expect(resends).toEqual([5_100_000]);
    // A tick late by less than the stall threshold runs at its due time, as before.
    expect(ticks.slice(1)).toEqual([5_100_000, 5_195_000, 5_290_000, 5_385_000]);
    expect(clock.stalls.count).toBe(1);
    clock.stop();
  });

  it('watching the event loop, a slow drain lasts while every turn reads a datagram, and ends at a turn with none', () => {
    const { wall, turns, clock, endTurn } = watchedClock();
    /** A datagram read at `t`, in a turn of its own; what the clock says it may have arrived from. */
    const readAt = (t: number) => {
      wall.set(t);
      clock.catchUp();
      const from = clock.arrivedFromUs();
      endTurn();
      return from;
    };
    wall.set(100_000);
    clock.catchUp();
    expect(turns).toEqual([]); // no stall, nothing watched
    // Stopped for 3 s (the tick due at 190 ms runs at 3.1 s), then starved: one read every 40 ms,
    // past the 250 ms and 10 ms of the wall-time rule, each in a turn of its own.
    wall.set(3_100_000);
    clock.catchUp();
    expect(clock.stalls.count).toBe(1);
    for (let t = 3_140_000; t <= 3_900_000; t += 40_000) expect(readAt(t)).toBe(190_000);
    // A turn that read nothing: the queue was empty, and later reads are dated by when they came.
    endTurn();
    expect(turns).toEqual([]);
    expect(readAt(3_950_000)).toBe(3_950_000);
    expect(clock.stalls.count).toBe(1);
    clock.stop();
  });

  it('a drain never outlasts the stall that queued it, even when every turn reads', () => {
    const { wall, turns, clock, endTurn } = watchedClock();
    wall.set(100_000);
    clock.catchUp();
    // Stopped 0.91 s: the watch ends 0.91 s after the stall was noticed (at 2.01 s).
    wall.set(1_100_000);
    clock.catchUp();
    const read: number[] = [];
    for (let t = 1_140_000; t <= 2_100_000; t += 40_000) {
      wall.set(t);
      clock.catchUp();
      read.push(clock.arrivedFromUs());
      endTurn();
    }
    expect(clock.stalls.count).toBe(1);
    // Reads from 1.14 s to 2.02 s drain; the turn after the read at 2.02 s is past the watch's end and closes it.
    expect(read).toEqual([...Array(23).fill(190_000), 2_060_000, 2_100_000]);
    expect(turns).toEqual([]);
    clock.stop();
  });

  it('a callback that throws stops the clock and reports the error once', () => {
    const wall = fakeWall();
    const errors: unknown[] = [];
    const clock = new WallClock(wall.source, (e) => errors.push(e));
    clock.at(micros(10), () => {
      throw new Error('boom');
    });
    clock.at(micros(20), () => errors.push('never'));
    wall.set(100);
    clock.catchUp();
    expect(errors).toHaveLength(1);
    expect((clock.failure as Error).message).toBe('boom');
  });

  it('fires on its own from Node timers, late but never early', async () => {
    const clock = new WallClock();
    const firedAt: number[] = [];
    clock.after(micros(20_000), () => firedAt.push(clock.wallUs() - 20_000));
    await new Promise((r) => setTimeout(r, 80));
    clock.stop();
    expect(firedAt).toHaveLength(1);
    expect(firedAt[0]).toBeGreaterThanOrEqual(0);
  });

  it('LatenessRing keeps percentiles over the latest samples', () => {
    const ring = new LatenessRing();
    for (let i = 1; i <= 1000; i++) ring.record(i);
    expect(ring.figures()).toEqual({ count: 1000, p50: 500, p99: 990, max: 1000 });
  });
});

describe('RemoteBridge: the join script against real replies', () => {
  const game = (opcode: number): Delivery => ({
    type: TYPE_GAME,
    low: false,
    reliable: true,
    seq: 1,
    payload: Uint8Array.of(opcode, 1, 2),
    uid: -1,
  });

  function setup() {
    const wall = fakeWall();
    const clock = new WallClock(wall.source);
    const reported: Array<[string, number, number]> = [];
    const bridge = new RemoteBridge(
      clock,
      'client',
      () => ({ onDelivered: (to, client, uid, d) => reported.push([to, uid, d.payload[0]]) }),
      joinSteps(),
    );
    return { wall, clock, reported, bridge };
  }

  it('a reply that comes after the script expected it is reported under the expectation uid', () => {
    const { bridge, reported, clock } = setup();
    const uid = bridge.expect(1, TYPE_GAME, Uint8Array.of(0x20), true); // ChecksumRequest from the server
    expect(uid).toBeLessThan(-1);
    bridge.delivered(1, game(0x20));
    expect(reported).toEqual([['client', uid, 0x20]]);
    expect(bridge.matched).toBe(1);
    clock.stop();
  });

  it('a reply that comes first waits for the expectation', () => {
    const { bridge, reported, clock, wall } = setup();
    bridge.delivered(1, game(0x20));
    expect(reported).toEqual([]);
    const uid = bridge.expect(1, TYPE_GAME, Uint8Array.of(0x20), true);
    wall.set(1);
    clock.catchUp();
    expect(reported).toEqual([['client', uid, 0x20]]);
    clock.stop();
  });

  it("messages outside the join are delivered as they are, and the script's copies of them are not expected", () => {
    const { bridge, reported, clock } = setup();
    expect(bridge.expect(1, TYPE_GAME, Uint8Array.of(0x99), true)).toBe(-1);
    bridge.delivered(1, game(0x99));
    expect(reported).toEqual([['client', -1, 0x99]]);
    clock.stop();
  });
});

describe('OwnMessages', () => {
  it('counts sent, ACKed, given up and refused, and grows past its first block', () => {
    const own = new OwnMessages();
    const uids = Array.from({ length: 3000 }, () => own.register());
    own.acknowledged(uids[0]);
    own.gaveUp(uids[1]);
    own.refused(uids[2]);
    own.acknowledged(-1); // no uid: ignored
    own.register(true); // a keepalive of the transport: counted apart
    expect(own.stats()).toEqual({
      reliableSent: 2999,
      transportReliableSent: 1,
      acknowledged: 1,
      unacknowledged: 2997,
      gaveUp: 1,
      refused: 1,
      unreliableSent: 0,
    });
  });
});
