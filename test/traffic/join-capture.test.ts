// With the stock preset, the built-in loopback join reproduces
// the captured datagrams of docs/sources.md R1–R3 byte for byte where the
// payload is known, and the captured structure everywhere else (docs/sources.md 16).
import { describe, expect, it } from 'vitest';
import { TYPE_ACK, TYPE_CONNECT_ACK, TYPE_GAME, parseHex } from '../../src/core/codec/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { recordSent } from '../support/record.js';
import type { Sent } from '../support/record.js';

const hex = (text: string): string => {
  const parsed = parseHex(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return Buffer.from(parsed.bytes).toString('hex');
};

const CAPTURED = {
  connectReply:
    '01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20',
  checksumResponseR0: '02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00',
  checksumRequestR2: '01 01 32 1E 80 02 00 20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21',
};

function join(): Sent[] {
  const { observer, sent } = recordSent();
  runScenario(loadScenario('fragment-ack-bug'), { preset: 'stock', durationUs: 10e6, observer });
  return sent;
}

/** "A0" for an ACK of high seq 0, "G3" for a game message with seq 3, "C0" for a connect-type message. */
const shape = (d: Sent) =>
  d.messages.map((m) =>
    m.type === TYPE_ACK
      ? `A${m.seq}`
      : m.type === TYPE_GAME
        ? `G${m.seq}`
        : m.type === TYPE_CONNECT_ACK
          ? `C${m.seq}`
          : `T${m.type}:${m.seq}`,
  );

describe('the captured loopback join (stock)', () => {
  const sent = join();
  const server = sent.filter((d) => d.from === 'server');
  const client = sent.filter((d) => d.from === 'client');

  it('the connect reply with checksum request r0 is byte-exact, with no ACK of the Connect', () => {
    expect(Buffer.from(server[0].bytes).toString('hex')).toBe(hex(CAPTURED.connectReply));
  });

  it("the client's first checksum response is byte-exact and travels alone", () => {
    const first = client.find((d) => d.messages.some((m) => m.type === TYPE_GAME));
    expect(Buffer.from(first?.bytes ?? []).toString('hex')).toBe(hex(CAPTURED.checksumResponseR0));
  });

  it('checksum request r2 is byte-exact and travels alone (its think time outlasts a server update)', () => {
    const r2 = server.find((d) => d.messages.some((m) => m.type === TYPE_GAME && m.seq === 2));
    expect(Buffer.from(r2?.bytes ?? []).toString('hex')).toBe(hex(CAPTURED.checksumRequestR2));
  });

  it('replies share a datagram with the ACK made in the update that read their trigger', () => {
    const carrying = (seq: number) => server.find((d) => d.messages.some((m) => m.type === TYPE_GAME && m.seq === seq));
    // "ACK seq 0 travels with checksum request r1", "ACK 3 travels with request 0xFF".
    expect(shape(carrying(1) as Sent)).toEqual(['A0', 'G1']);
    expect(shape(carrying(4) as Sent)).toEqual(['A3', 'G4']);
    // Step 13: 0x28 + Settings + GameInit in one datagram (6 + 51 + 6 bytes).
    const step13 = carrying(5) as Sent;
    expect(step13.messages.filter((m) => m.type === TYPE_GAME).map((m) => m.size)).toEqual([6, 51, 6]);
  });

  it('the round-2 response goes out as 3 fragments of seq 2, 412 bytes first (flags 0xA1, 0xA1, 0xA0)', () => {
    // First sends only (note 0), in datagrams that may also carry ACKs.
    const fragments = client.flatMap((d) =>
      d.messages.filter((m, i) => m.type === TYPE_GAME && m.fragment && d.notes[i] === 0),
    );
    expect(fragments.map((m) => [m.seq, m.fragIndex, m.size])).toEqual([
      [2, 0, 412],
      [2, 1, 411],
      [2, 2, 196],
    ]);
  });

  it('the first fragment leaves in one 418-byte datagram with the ACK of request r2 (the join table, docs/sources.md 16)', () => {
    const first = client.find((d) =>
      d.messages.some((m) => m.type === TYPE_GAME && m.fragment && m.fragIndex === 0),
    ) as Sent;
    expect(first.bytes.length).toBe(418);
    expect(shape(first)).toEqual(['A2', 'G2']);
    // It is the second send of that ACK: the reply was ready 675 ms after the request, just after the first.
    expect(client.filter((d) => d.timeUs < first.timeUs && shape(d).includes('A2'))).toHaveLength(1);
  });

  it('the server ACKs the Connect (01 00 00 02) in a datagram after its connect reply (docs/sources.md 26)', () => {
    const at = server.findIndex((d) =>
      d.messages.some((m) => m.type === TYPE_ACK && m.seq === 0 && (m.flags & 2) !== 0),
    );
    expect(at).toBeGreaterThan(0);
    expect(Buffer.from(server[at].bytes).toString('hex')).toContain('01000002');
  });

  it('the join keepalive is the captured 22-byte reliable message, ACKed with 01 01 00 02 and echoed in the same form', () => {
    const keepalive = client.find((d) => d.messages.some((m) => m.type === 0x00)) as Sent;
    const message = keepalive.messages.find((m) => m.type === 0x00);
    expect([message?.size, keepalive.bytes[(message?.offset ?? 0) + 2], message?.type === 0x00 && message.seq]).toEqual(
      [22, 0xc0, 1],
    );
    expect(server.some((d) => Buffer.from(d.bytes).toString('hex').includes('01010002'))).toBe(true);
    const echo = server.find((d) => d.messages.some((m) => m.type === 0x00)) as Sent;
    const echoed = echo.messages.find((m) => m.type === 0x00);
    expect([echoed?.size, echo.bytes[(echoed?.offset ?? 0) + 2]]).toEqual([22, 0xc0]);
  });
});
