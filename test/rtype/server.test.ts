// The R-Type server, client, clock and TCP channel, driven by hand: each switch's
// mechanism in a few frames, without links or randomness.
import { describe, expect, it } from 'vitest';
import { Simulator, micros } from '../../src/core/engine/index.js';
import {
  DEFAULT_RTYPE_LIMITS,
  RtypeClient,
  RtypeServer,
  SPEC_TIMING,
  TickClock,
  decodeDatagram,
  decodeHeader,
  encodePacket,
  encodeRegistration,
  encodeTcpAck,
  rtypeSwitches,
} from '../../src/rtype/transport/index.js';
import type { RtypeSwitches } from '../../src/rtype/transport/index.js';
import { TcpChannel } from '../../src/rtype/session/index.js';

interface Sent {
  client: number;
  kind: string;
  ack: number;
}

/** A server with `clients` registered users and a record of what it sent. */
function harness(
  switches: Partial<RtypeSwitches>,
  clients = 2,
  preset: 'documented' | 'repaired' | 'implemented' = 'documented',
) {
  const sent: Sent[] = [];
  const gaveUp: Array<[number, number]> = [];
  const server = new RtypeServer(rtypeSwitches(preset, switches), SPEC_TIMING, DEFAULT_RTYPE_LIMITS, {
    send: (client, bytes, kind) => {
      const head = decodeHeader(bytes);
      sent.push({ client, kind, ack: head.ok ? head.header.ack : -1 });
    },
    gaveUp: (client, entityId) => gaveUp.push([client, entityId]),
  });
  for (let k = 1; k <= clients; k++) server.receiveUdp(k, encodeRegistration());
  let tick = 0;
  /** Runs one frame at `ms`, queueing `deaths`. */
  const frame = (ms: number, deaths: number[] = []) => {
    server.beginFrame(micros(ms * 1000), tick++);
    for (const d of deaths) server.queueCritical(d);
    server.maintain();
    return server.endFrame();
  };
  return { server, sent, gaveUp, frame };
}

describe('rtype server mechanisms', () => {
  it('documented: store, one entry per user, send to all; the confirming user alone is cleared', () => {
    const { server, sent, frame } = harness({});
    frame(0, [500]);
    expect(sent).toEqual([
      { client: 1, kind: 'critical', ack: 1 },
      { client: 2, kind: 'critical', ack: 1 },
    ]);
    expect([server.store.size, server.pendingTotal()]).toEqual([1, 2]);
    server.receiveTcp(1, encodeTcpAck(1));
    expect(server.pendingTotal()).toBe(1);
    expect(server.isResendable(2, 500)).toBe(true);
    expect(server.counters.matched).toBe(1);
  });

  it('clearWithoutBreak: one client confirms, everyone is cleared', () => {
    const { server, frame } = harness({ clearWithoutBreak: true });
    frame(0, [500]);
    server.receiveTcp(1, encodeTcpAck(1));
    expect(server.pendingTotal()).toBe(0);
    expect(server.counters.clearedForOthers).toBe(1);
    server.receiveTcp(2, encodeTcpAck(1));
    expect(server.counters.unattributed.tcp).toBe(1);
  });

  it('documented scan: resend past 500 ms, every tick, to the waiting user only; expiry past 1500 ms is reported', () => {
    const { server, sent, gaveUp, frame } = harness({});
    frame(0, [500]);
    server.receiveTcp(1, encodeTcpAck(1));
    expect(frame(500).resendDatagrams).toBe(0); // 500 is not older than 500
    expect(frame(533).resendDatagrams).toBe(1);
    expect(frame(566).resendDatagrams).toBe(1);
    expect(sent.filter((s) => s.kind === 'resend').map((s) => s.client)).toEqual([2, 2]);
    frame(1501);
    expect([server.store.size, server.pendingTotal(), server.danglingEntries]).toEqual([0, 0, 0]);
    expect(gaveUp).toEqual([[2, 500]]);
  });

  it('silentDropAtExpiry: the entry stays, dangling, and nobody is told', () => {
    const { server, gaveUp, frame } = harness({ silentDropAtExpiry: true });
    frame(0, [500]);
    frame(1501);
    expect([server.store.size, server.pendingTotal(), server.danglingEntries]).toEqual([0, 2, 2]);
    expect(gaveUp).toEqual([]);
    server.receiveTcp(2, encodeTcpAck(1));
    expect(server.danglingEntries).toBe(1);
  });

  it('thresholdsInTicks: 500 ticks, not 500 ms', () => {
    const { frame } = harness({ thresholdsInTicks: true });
    frame(0, [500]);
    let resent = 0;
    for (let t = 1; t <= 500; t++) resent += frame(t * 33).resendDatagrams;
    expect(resent).toBe(0);
    expect(frame(501 * 33).resendDatagrams).toBe(2);
  });

  it('pendingListsOnCopies and loopHoldsStaleCopies leave the real lists empty', () => {
    for (const name of ['pendingListsOnCopies', 'loopHoldsStaleCopies'] as const) {
      const { server, frame } = harness({ [name]: true });
      frame(0, [500, 501]);
      expect(server.pendingTotal(), name).toBe(0);
      expect(frame(600).resendDatagrams, name).toBe(0);
    }
  });

  it('ackZeroedOnSend: the id never reaches the wire', () => {
    const { sent, frame } = harness({ ackZeroedOnSend: true });
    frame(0, [500]);
    expect(sent.map((s) => s.ack)).toEqual([0, 0]);
  });

  it('pendingHoldsTicks: lists hold the tick, a confirmation by id clears nothing, or the wrong entries', () => {
    const { server, frame } = harness({ pendingHoldsTicks: true });
    frame(0, []);
    frame(33, [500, 501]); // tick 1, ack ids 1 and 2: both entries hold 1
    server.receiveTcp(1, encodeTcpAck(2));
    expect(server.pendingTotal()).toBe(4);
    expect(server.counters.unattributed.tcp).toBe(1);
    // Id 1 equals tick 1 by accident: it clears both of user 1's entries, id 2's with it.
    server.receiveTcp(1, encodeTcpAck(1));
    expect(server.pendingTotal()).toBe(2);
  });

  it('confirmViaNextUdp: the ack field of an ordinary datagram confirms', () => {
    const { server, frame } = harness({ confirmViaNextUdp: true });
    frame(0, [500]);
    server.receiveUdp(1, encodePacket({ id: 1, ack: 1 }, { kind: 'position', entityId: 1, x: 0, y: 0 }));
    expect(server.pendingTotal()).toBe(1);
    expect(server.counters.confirmations.udp).toBe(1);
  });

  it("registrationReadsStaleHeader: a registration confirms the previous datagram's ack", () => {
    const { server, frame } = harness({
      confirmViaNextUdp: true,
      registrationReadsStaleHeader: true,
      clearWithoutBreak: true,
    });
    frame(0, [500]);
    server.receiveUdp(1, encodePacket({ id: 1, ack: 7 }, { kind: 'position', entityId: 1, x: 0, y: 0 }));
    server.receiveUdp(3, encodeRegistration());
    expect(server.counters.staleHeaderReads).toBe(1);
    expect(server.counters.confirmations.registration).toBe(1);
    server.receiveUdp(1, encodePacket({ id: 1, ack: 1 }, { kind: 'position', entityId: 1, x: 0, y: 0 }));
    server.receiveUdp(4, encodeRegistration());
    expect(server.pendingTotal()).toBe(0); // client 4's registration cleared id 1 for everyone
  });

  it('repaired: a per-packet timer re-sends each waiting pair once per retry interval', () => {
    const { frame } = harness({}, 2, 'repaired');
    frame(0, [500, 501, 502]);
    expect(frame(100).resendDatagrams).toBe(0);
    expect(frame(150).resendDatagrams).toBe(6);
    expect(frame(200).resendDatagrams).toBe(0);
    expect(frame(300).resendDatagrams).toBe(6);
  });

  it('throws on a frame that was never opened', () => {
    const { server } = harness({});
    expect(() => server.queueCritical(1)).toThrow(/no frame is open/);
  });
});

describe('rtype client', () => {
  const death = (ack: number, entityId: number) => encodePacket({ id: 0, ack }, { kind: 'death', entityId });

  it('confirms each critical packet over TCP (documented)', () => {
    const tcp: Uint8Array[] = [];
    const client = new RtypeClient(1, rtypeSwitches('documented'), {
      sendUdp: () => {},
      sendTcp: (b) => tcp.push(b),
      deathArrived: () => {},
    });
    client.receiveUdp(death(4, 9));
    client.receiveUdp(death(0, 10));
    expect(tcp.map((b) => Buffer.from(b).toString('hex'))).toEqual(['4100000004']);
  });

  it('under confirmViaNextUdp keeps only the last non-zero id, repeated in every datagram', () => {
    const udp: Uint8Array[] = [];
    const client = new RtypeClient(2, rtypeSwitches('implemented'), {
      sendUdp: (b) => udp.push(b),
      sendTcp: () => {},
      deathArrived: () => {},
    });
    client.receiveUdp(death(4, 9));
    client.receiveUdp(death(5, 10));
    client.receiveUdp(death(0, 11));
    client.sendOrdinary(0, 0);
    client.sendOrdinary(0, 0);
    const acks = udp.map((b) => {
      const d = decodeDatagram(b);
      return d.ok && d.datagram.kind === 'packet' ? d.datagram.header.ack : -1;
    });
    expect(acks).toEqual([5, 5]);
  });
});

describe('rtype tick clock (docs/sources.md 24)', () => {
  it('an early frame advances the tick and sleeps to the period; an overrun does neither', () => {
    const clock = new TickClock(SPEC_TIMING);
    expect(clock.finishFrame(micros(0), micros(2_000))).toBe(33_333);
    expect(clock.tick).toBe(1);
    expect(clock.finishFrame(micros(33_333), micros(50_000))).toBe(83_333);
    expect(clock.tick).toBe(1);
    expect(clock.finishFrame(micros(83_333), micros(33_333))).toBe(116_666); // exactly the period is not early
    expect([clock.tick, clock.frames, clock.overrunFrames]).toEqual([1, 3, 2]);
    expect(clock.workUs(100)).toBe(SPEC_TIMING.frameBaseWorkUs + 100 * SPEC_TIMING.workPerDatagramUs);
  });
});

describe('rtype TCP channel', () => {
  it('is in order and lossless; an outage holds messages until it ends', () => {
    const sim = new Simulator();
    const arrivals: Array<[number, number]> = [];
    const tcp = new TcpChannel(sim, { latencyMs: 40, outages: [{ startMs: 100, endMs: 300 }], maxInFlight: 10 }, (b) =>
      arrivals.push([sim.now / 1000, b[0]]),
    );
    sim.at(micros(0), () => tcp.send(Uint8Array.of(1)));
    sim.at(micros(80), () => tcp.send(Uint8Array.of(2)));
    sim.at(micros(150_000), () => tcp.send(Uint8Array.of(3)));
    sim.at(micros(150_001), () => tcp.send(Uint8Array.of(4)));
    sim.runUntilIdle();
    expect(arrivals).toEqual([
      [40, 1],
      [40.08, 2],
      [340, 3],
      [340, 4],
    ]);
    expect(tcp.counters.held).toBe(2);
  });
});
