// The four decrypted stock datagrams of docs/sources.md R1–R4, field by field.
import { describe, expect, it } from 'vitest';
import { decodeDatagram, decodeResultToJson, encodeDatagram, messageSize } from '../../src/core/codec/index.js';
import { arr, asAck, asData, hex, okBytes, okDecode } from './helpers.js';

const SERVER_CONNECT_AND_GAME =
  '01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20';
const CLIENT_GAME_SEQ0 = '02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00';
const SERVER_GAME_SEQ2 =
  '01 01 32 1E 80 02 00 20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21';
const CLIENT_DISCONNECT = '02 03 05 0A C0 02 00 02 0A 0A 0A EF 01 27 00 00 01 28 00 00';

describe('real packet 1: server ConnectAck-type control message + reliable game message', () => {
  const bytes = hex(SERVER_CONNECT_AND_GAME);
  const d = okDecode(decodeDatagram(bytes));

  it('header: peer 0x01 (server), 2 messages, 35 bytes', () => {
    expect(bytes.length).toBe(35);
    expect(d.peerId).toBe(0x01);
    expect(d.messageCount).toBe(2);
    expect(d.messages).toHaveLength(2);
  });

  it('message 0: type 0x03, reliable+ordered, length 6, low seq 0, payload 02', () => {
    const m = asData(d.messages[0]);
    expect(m.offset).toBe(2);
    expect(m.size).toBe(6);
    expect(m.type).toBe(0x03);
    expect(m.reliable).toBe(true);
    expect(m.ordered).toBe(true);
    expect(m.fragment).toBe(false);
    expect(m.seq).toBe(0);
    expect(m.fragIndex).toBeNull();
    expect(m.fragCount).toBeNull();
    expect(arr(m.payload)).toEqual([0x02]);
  });

  it('message 1: type 0x32, reliable, unordered, length 27, seq 0, 22-byte payload', () => {
    const m = asData(d.messages[1]);
    expect(m.offset).toBe(8);
    expect(m.size).toBe(27);
    expect(m.type).toBe(0x32);
    expect(m.reliable).toBe(true);
    expect(m.ordered).toBe(false);
    expect(m.fragment).toBe(false);
    expect(m.seq).toBe(0);
    expect(m.fragIndex).toBeNull();
    expect(m.fragCount).toBeNull();
    expect(arr(m.payload)).toEqual(arr(hex('20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20')));
    // "scripts/" and "App.pyc" are in there.
    expect(Buffer.from(m.payload).toString('latin1')).toContain('scripts/');
    expect(Buffer.from(m.payload).toString('latin1')).toContain('App.pyc');
  });
});

describe('real packet 2: client reliable game message, seq 0', () => {
  const bytes = hex(CLIENT_GAME_SEQ0);
  const d = okDecode(decodeDatagram(bytes));

  it('every field', () => {
    expect(bytes.length).toBe(28);
    expect(d.peerId).toBe(0x02);
    expect(d.messageCount).toBe(1);
    const m = asData(d.messages[0]);
    expect([m.offset, m.size, m.type]).toEqual([2, 26, 0x32]);
    expect([m.reliable, m.ordered, m.fragment]).toEqual([true, false, false]);
    expect([m.seq, m.fragIndex, m.fragCount]).toEqual([0, null, null]);
    expect(m.payload.length).toBe(21);
    expect(arr(m.payload)).toEqual(arr(hex('21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00')));
  });
});

describe('real packet 3: server reliable game message, seq 2', () => {
  const bytes = hex(SERVER_GAME_SEQ2);
  const d = okDecode(decodeDatagram(bytes));

  it('every field', () => {
    expect(bytes.length).toBe(32);
    expect(d.peerId).toBe(0x01);
    expect(d.messageCount).toBe(1);
    const m = asData(d.messages[0]);
    expect([m.offset, m.size, m.type]).toEqual([2, 30, 0x32]);
    expect([m.reliable, m.ordered, m.fragment]).toEqual([true, false, false]);
    expect([m.seq, m.fragIndex, m.fragCount]).toEqual([2, null, null]);
    expect(m.payload.length).toBe(25);
    expect(arr(m.payload)).toEqual(
      arr(hex('20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21')),
    );
    expect(Buffer.from(m.payload).toString('latin1')).toContain('scripts/ships');
  });
});

describe('real packet 4: client Disconnect carrying two stale ACKs', () => {
  const bytes = hex(CLIENT_DISCONNECT);
  const d = okDecode(decodeDatagram(bytes));

  it('header: peer 0x02, 3 messages, 20 bytes', () => {
    expect(bytes.length).toBe(20);
    expect(d.peerId).toBe(0x02);
    expect(d.messageCount).toBe(3);
    expect(d.messages.map((m) => [m.type, m.offset, m.size])).toEqual([
      [0x05, 2, 10],
      [0x01, 12, 4],
      [0x01, 16, 4],
    ]);
  });

  it('Disconnect: reliable+ordered, low seq 2, 5-byte payload', () => {
    const m = asData(d.messages[0]);
    expect([m.reliable, m.ordered, m.fragment]).toEqual([true, true, false]);
    expect([m.seq, m.fragIndex, m.fragCount]).toEqual([2, null, null]);
    expect(arr(m.payload)).toEqual([0x02, 0x0a, 0x0a, 0x0a, 0xef]);
  });

  it('ACKs of seq 39 and 40: 4 bytes, high-type, not fragment', () => {
    const a = asAck(d.messages[1]);
    const b = asAck(d.messages[2]);
    expect([a.seq, a.flags, a.fragIndex]).toEqual([39, 0, null]);
    expect([b.seq, b.flags, b.fragIndex]).toEqual([40, 0, null]);
  });
});

describe('real packets re-encode byte for byte', () => {
  for (const [name, text] of Object.entries({
    SERVER_CONNECT_AND_GAME,
    CLIENT_GAME_SEQ0,
    SERVER_GAME_SEQ2,
    CLIENT_DISCONNECT,
  })) {
    it(name, () => {
      const bytes = hex(text);
      const d = okDecode(decodeDatagram(bytes));
      // Each decoded size agrees with messageSize of the decoded message.
      for (const m of d.messages) expect(messageSize(m)).toBe(m.size);
      const re = okBytes(encodeDatagram({ peerId: d.peerId, messages: d.messages }));
      expect(arr(re)).toEqual(arr(bytes));
    });
  }
});

describe('decodeResultToJson shape', () => {
  it('real packet 4: exact keys (in order) and values of data and ACK entries', () => {
    const bytes = hex(CLIENT_DISCONNECT);
    const json = decodeResultToJson(bytes, decodeDatagram(bytes));
    expect(Object.keys(json)).toEqual(['ok', 'length', 'peerId', 'messageCount', 'messages', 'error']);
    expect(Object.keys(json.messages[0])).toEqual([
      'offset',
      'type',
      'name',
      'size',
      'reliable',
      'ordered',
      'fragment',
      'seq',
      'fragIndex',
      'fragCount',
      'payloadHex',
    ]);
    expect(Object.keys(json.messages[1])).toEqual([
      'offset',
      'type',
      'name',
      'size',
      'seq',
      'flags',
      'fragment',
      'fragIndex',
      'lowType',
    ]);
    expect(json).toEqual({
      ok: true,
      length: 20,
      peerId: 2,
      messageCount: 3,
      error: null,
      messages: [
        {
          offset: 2,
          type: 5,
          name: 'disconnect',
          size: 10,
          reliable: true,
          ordered: true,
          fragment: false,
          seq: 2,
          fragIndex: null,
          fragCount: null,
          payloadHex: '020A0A0AEF',
        },
        {
          offset: 12,
          type: 1,
          name: 'ack',
          size: 4,
          seq: 39,
          flags: 0,
          fragment: false,
          fragIndex: null,
          lowType: false,
        },
        {
          offset: 16,
          type: 1,
          name: 'ack',
          size: 4,
          seq: 40,
          flags: 0,
          fragment: false,
          fragIndex: null,
          lowType: false,
        },
      ],
    });
    // And it survives JSON serialisation unchanged (no Uint8Array or undefined inside).
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('real packet 1: the type-0x03 message is labelled connectAck and the game message game', () => {
    const bytes = hex(SERVER_CONNECT_AND_GAME);
    const json = decodeResultToJson(bytes, decodeDatagram(bytes));
    expect(json.messages.map((m) => m.name)).toEqual(['connectAck', 'game']);
    expect(json.messages[1]).toMatchObject({ payloadHex: '20000800736372697074732F0700417070' + '2E70796320' });
  });

  it('ACK entries report fragment (flags bit 0) and lowType (flags bit 1) separately', () => {
    const bytes = hex('01 03 01 02 00 01 01 01 07 00 02 01 09 00 03 00');
    const json = decodeResultToJson(bytes, decodeDatagram(bytes));
    expect(json.messages).toEqual([
      { offset: 2, type: 1, name: 'ack', size: 5, seq: 2, flags: 1, fragment: true, fragIndex: 1, lowType: false },
      { offset: 7, type: 1, name: 'ack', size: 4, seq: 7, flags: 2, fragment: false, fragIndex: null, lowType: true },
      { offset: 11, type: 1, name: 'ack', size: 5, seq: 9, flags: 3, fragment: true, fragIndex: 0, lowType: true },
    ]);
  });

  it('fragment fields and an empty payload in the JSON of a data message', () => {
    const bytes = hex('02 01 32 07 A0 02 00 00 03');
    const json = decodeResultToJson(bytes, decodeDatagram(bytes));
    expect(json.messages[0]).toEqual({
      offset: 2,
      type: 0x32,
      name: 'game',
      size: 7,
      reliable: true,
      ordered: false,
      fragment: true,
      seq: 2,
      fragIndex: 0,
      fragCount: 3,
      payloadHex: '',
    });
  });

  it('a failed decode still lists the messages before the error, with the error offset', () => {
    const bytes = hex('02 03 05 0A C0 02 00 02 0A 0A 0A EF 01 27 00 00 01 28 00');
    const json = decodeResultToJson(bytes, decodeDatagram(bytes));
    expect(json.ok).toBe(false);
    expect(json.length).toBe(19);
    expect(json.messages).toHaveLength(2);
    expect(json.error?.offset).toBe(16);
  });
});
