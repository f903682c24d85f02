// Two things the analysis must not misread as transport behaviour (README
// "Reading captures"): the server's keepalive echoes, which copy the client's
// keepalive (with a fresh seq, or re-using one every second as a real server
// does) and are not re-sends; and the server's removal of a client, whose
// silence is the removal's, not a dead zone's or "3 sends then silence".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeCapture } from '../../src/analysis/capture/analyze-capture.js';
import type { CaptureAnalysis } from '../../src/analysis/capture/analyze-capture.js';
import { renderCaptureAnalysis } from '../../src/analysis/capture/analyze-report.js';
import { terminalStyle } from '../../src/core/output/style.js';
import {
  ack,
  CONNECT_PACKET,
  fromClient,
  fromServer,
  pcap,
  reliable,
  udpPackets,
  unreliable,
} from '../support/pcap-build.js';
import type { WirePacket } from '../support/pcap-build.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-connection-end-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const S = 1_000_000;
const C = fromClient;
const SV = fromServer;
const CONNECT = CONNECT_PACKET;
/** The client's identity payload (two pad bytes, slot, IPv4, a UTF-16LE name with its NUL): docs/sources.md 26. */
const IDENTITY = [0, 0, 2, 127, 0, 0, 1, 0x62, 0, 0x63, 0, 0, 0];

function analyze(traffic: WirePacket[]): CaptureAnalysis {
  const path = join(dir, `e${n++}.pcap`);
  writeFileSync(path, pcap(udpPackets([...traffic].sort((a, b) => a.timeUs - b.timeUs))));
  const result = analyzeCapture(path);
  if (!result.ok) throw new Error(result.error.reason);
  return result.analysis;
}

describe('keepalive echoes', () => {
  it("re-using the client's seq about every second (a real server's cache): echoes, not 17 re-sends", () => {
    const echoes = Array.from({ length: 17 }, (_, i) => SV((2 + i) * S, reliable(1, IDENTITY, 0x00)));
    // The client ACKs each copy it gets (a low-type ACK of seq 1).
    const acks = Array.from({ length: 17 }, (_, i) => C((2 + i) * S + 20_000, ack(1, 2)));
    const a = analyze([CONNECT, C(1 * S, reliable(1, IDENTITY, 0x00)), ...echoes, ...acks]);
    const down = a.connections[0].serverToClient;
    expect(down.keepalives).toEqual({ type00: 0, type02: 0, echoes: 17, echoSeqReused: 16 });
    expect(down.reliable.low).toEqual({ messages: 0, transmissions: 0, retransmissions: 0 });
    // The client's ACKs answer the echoes: not ACKs of messages the capture misses, nor stale.
    const up = a.connections[0].clientToServer;
    expect(up.acks.forUnseenMessages).toBe(0);
    expect(up.acks.stale).toBe(0);
    expect(up.keepalives.type00).toBe(1);
    expect(renderCaptureAnalysis(a, terminalStyle(false, {}))).toMatch(
      /keepalive echoes \(seq re-used\)\s+│ 0 \(0\)\s+│ 17 \(16\)/,
    );
  });

  it("with a fresh seq of the server's (the stock echo), also an echo; a type-0x00 message of other bytes is not", () => {
    const a = analyze([
      CONNECT,
      C(1 * S, reliable(1, IDENTITY, 0x00)),
      SV(1.1 * S, reliable(1, IDENTITY, 0x00)),
      C(1.2 * S, ack(1, 2)),
      SV(6.1 * S, reliable(2, [0, 0, 1, 10, 10, 10, 1, 0x73, 0, 0, 0], 0x00)),
      C(6.2 * S, ack(2, 2)),
    ]);
    const down = a.connections[0].serverToClient;
    expect(down.keepalives).toEqual({ type00: 1, type02: 0, echoes: 1, echoSeqReused: 0 });
    expect(down.reliable.low).toEqual({ messages: 1, transmissions: 1, retransmissions: 0 });
  });
});

describe('the server removes the client', () => {
  /** Game traffic until `untilS`: a client message and the server's three ACKs of it each second. */
  const play = (untilS: number) => {
    const out: WirePacket[] = [CONNECT];
    for (let s = 1; s <= untilS; s++) {
      out.push(C(s * S, reliable(s)));
      for (let k = 0; k < 3; k++) out.push(SV(s * S + 10_000 + k * 667_000, ack(s), unreliable()));
    }
    return out;
  };

  it('a transport Boot naming the slot: the connection ends there, said so', () => {
    const a = analyze([...play(5), SV(6 * S, reliable(0, [2, 1], 0x04)), C(7 * S, unreliable())]);
    const c = a.connections[0];
    expect(c.removal).toEqual({
      atS: 6,
      by: 'boot',
      inferred: false,
      detail: 'a transport Boot, type 0x04, naming slot 2',
    });
    expect(c.endedS).toBe(6);
    expect(renderCaptureAnalysis(a, terminalStyle(false, {}))).toContain(
      'the server removed the client at t=6.000 s (a transport Boot, type 0x04, naming slot 2)',
    );
  });

  it('a game BootPlayer (type 0x32, opcode 0x04) with its reason', () => {
    const a = analyze([
      ...play(5),
      SV(6 * S, reliable(9, [0x04, 0x03])),
      ...Array.from({ length: 20 }, (_, i) => C((7 + i) * S, reliable(10 + i))),
    ]);
    const c = a.connections[0];
    expect(c.removal).toEqual({
      atS: 6,
      by: 'boot-player',
      inferred: false,
      detail: 'a game BootPlayer, type 0x32 opcode 0x04, reason 3',
    });
    expect(c.endedS).toBe(6);
    expect(c.ackOutbox.server.behaviour.rule).toBe('single-pass');
    expect(c.ackOutbox.server.defined?.untilS).toBe(6);
  });

  it('a server Disconnect', () => {
    const a = analyze([...play(5), SV(6 * S, reliable(0, [2, 127, 0, 0, 1], 0x05))]);
    expect(a.connections[0].removal).toMatchObject({ atS: 6, by: 'disconnect', inferred: false });
  });

  it('silent for good while the client keeps sending: removal inferred, and its silence is not "3 then silence"', () => {
    const after = Array.from({ length: 30 }, (_, i) => C(11 * S + i * 500_000, reliable(11 + (i >> 2))));
    const a = analyze([...play(10), ...after]);
    const c = a.connections[0];
    const lastServerS = 10 + 0.01 + 2 * 0.667;
    expect(c.removal?.by).toBe('silence');
    expect(c.removal?.inferred).toBe(true);
    expect(c.removal?.atS).toBeCloseTo(lastServerS, 6);
    expect(c.removal?.detail).toMatch(
      /^inferred: the server sent nothing more after 11\.344 s while the client sent 29 datagrams \(29 reliable transmissions\) over 14\.2 s$/,
    );
    // Keys 1-5 were silent for 5 s before the removal (key 5 exactly); the silence of keys 6-10 runs into it.
    expect(c.serverToClient.acks.threeThenSilence).toBe(5);
    expect(c.serverToClient.acks.silencedByRemoval).toBe(5);
    // The server's estimate stops at its last datagram; its behaviour is single-pass (passed over by its own later datagrams).
    expect(c.ackOutbox.server.behaviour.rule).toBe('single-pass');
    expect(c.ackOutbox.server.defined?.untilS).toBeCloseTo(lastServerS, 6);
    const text = renderCaptureAnalysis(a, terminalStyle(false, {}));
    expect(text).toContain('the server removed the client at t=11.344 s (inferred: the server sent nothing more');
    expect(text).toMatch(
      /ACK keys sent 3 times, then silence\s+│ 0\s+│ 5 \(single-pass: not a dead zone\) \(\+5 silenced by the removal\)/,
    );
  });

  it('no removal when the client left first, or the server answered to the end, or the client went quiet', () => {
    const quit = analyze([
      ...play(5),
      C(6 * S, reliable(0, [2, 127, 0, 0, 1], 0x05)),
      ...Array.from({ length: 30 }, (_, i) => C(7 * S + i * 500_000, unreliable())),
    ]);
    expect(quit.connections[0].removal).toBeNull();
    expect(analyze(play(20)).connections[0].removal).toBeNull();
    // The client sent only unreliable messages after the server's last word: nothing asked for an answer.
    expect(
      analyze([...play(5), ...Array.from({ length: 30 }, (_, i) => C(7 * S + i * 500_000, unreliable()))])
        .connections[0].removal,
    ).toBeNull();
  });
});
