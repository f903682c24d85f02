// The dissector on datagrams built here: retransmission and ACK marks on a scripted
// conversation, the AlbyRules vectors with each XOR library, and the personal-plugin install.
// Never skipped: without tshark every test fails and says so.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeDatagram, encrypt } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { checkFrame } from './expect-frame.js';
import type { Mark } from './expect-frame.js';
import { DISSECTOR, dataSources, dissect, writeCapture } from './tshark.js';
import { hexBytes, tsharkWorkspace } from './workspace.js';

const space = tsharkWorkspace('bcsim-dissector-');

describe('the Wireshark dissector in tshark', () => {
  it('retransmission marks: per category, per fragment, and a seq used again for a new message (after a wrap) is new', () => {
    const game = (seq: number, payload: number[], fragment?: [number, number | null]): Message => ({
      type: 0x32,
      reliable: true,
      ordered: false,
      fragment: fragment !== undefined,
      seq,
      fragIndex: fragment ? fragment[0] : null,
      fragCount: fragment ? fragment[1] : null,
      payload: Uint8Array.from(payload),
    });
    const ack = (seq: number, flags: number, fragIndex: number | null = null): Message => ({
      type: 0x01,
      seq,
      flags,
      fragIndex,
    });
    const keepalive: Message = {
      type: 0x00,
      reliable: true,
      ordered: true,
      fragment: false,
      seq: 5,
      fragIndex: null,
      fragCount: null,
      payload: Uint8Array.of(2),
    };
    const script: Array<[fromServer: boolean, messages: Message[], marks: Array<Mark | undefined>]> = [
      [false, [game(5, [0x07, 1])], []], // 1
      [true, [ack(5, 0)], []], // 2
      [true, [ack(5, 0)], [{ kind: 'ack', first: 2, sends: 2, deadZone: false }]], // 3: the same ACK again
      [false, [keepalive], []], // 4: seq 5 of the low category is another message
      [true, [ack(5, 2)], []], // 5: so is its ACK
      [false, [game(5, [0x07, 2])], []], // 6: seq 5 again with another payload: a new message (after a u16 wrap)
      [true, [ack(5, 0)], []], // 7: a new ACK, not a re-send of frame 2's
      [
        false,
        [game(5, [0x07, 2]), keepalive],
        [
          { kind: 'reliable', first: 6, number: 1 },
          { kind: 'reliable', first: 4, number: 1 },
        ],
      ], // 8
      [
        true,
        [ack(5, 0), ack(5, 2)],
        [
          { kind: 'ack', first: 7, sends: 2, deadZone: false },
          { kind: 'ack', first: 5, sends: 2, deadZone: false },
        ],
      ], // 9
      [false, [game(6, [0x21, 1], [0, 2]), game(6, [2], [1, null])], []], // 10: two fragments of seq 6
      [true, [ack(6, 1, 0), ack(6, 1, 1)], []], // 11
      [false, [game(6, [2], [1, null])], [{ kind: 'fragment', first: 10, number: 1 }]], // 12: fragment 1 again
      [
        true,
        [ack(6, 1, 1), ack(6, 1, 0)],
        [
          { kind: 'ack', first: 11, sends: 2, deadZone: false },
          { kind: 'ack', first: 11, sends: 2, deadZone: false },
        ],
      ], // 13
      [false, [game(6, [0x21, 1], [0, 2])], [{ kind: 'fragment', first: 10, number: 1 }]], // 14
      [false, [game(6, [2], [1, null])], [{ kind: 'fragment', first: 10, number: 2 }]], // 15
      // 16-25: one ACK sent 10 times: pass 1's 3 sends, pass 2's 4th to 9th (dead zone), then a new entry's first.
      ...Array.from({ length: 10 }, (_, k): [boolean, Message[], Array<Mark | undefined>] => [
        true,
        [ack(7, 0)],
        [{ kind: 'ack', first: 16, sends: k + 1, deadZone: k >= 3 && k < 9 }],
      ]),
    ];
    const plains = script.map(([fromServer, messages]) => {
      const encoded = encodeDatagram({ peerId: fromServer ? 1 : 2, messages });
      if (!encoded.ok) throw new Error(encoded.error.reason);
      return encoded.bytes;
    });
    const packets = plains.map((plain, i) => ({
      t: i / 10,
      fromServer: script[i][0],
      client: 1,
      bytes: encrypt(plain),
    }));
    const frames = dissect(writeCapture(space.work, 'marks', packets), space.options);
    expect(frames.length).toBe(script.length);
    script.forEach(([, , marks], i) => checkFrame(frames[i], packets[i].bytes, plains[i], 'encrypted', marks));
    // Another conversation (a second client) has marks of its own: its first seq 5 is new.
    const other = dissect(
      writeCapture(space.work, 'marks-two', [...packets.slice(0, 2), { ...packets[0], t: 0.5, client: 2 }]),
      space.options,
    );
    expect(other.map((f) => f.bc!.messages[0].fields['bc.retransmit'])).toEqual([undefined, undefined, undefined]);
    expect(other.map((f) => f.bc!.messages[0].fields['bc.ack.sends'])).toEqual([undefined, ['1'], undefined]);
  });

  it('AlbyRules vectors: the "Decrypted BC" data source holds the plaintext, with every XOR implementation this Lua has', () => {
    const vectors = [
      ['01 00 00 00 00 00', '01 D6 FE 17 F1 86'],
      ['01 01 01 02 00 02', '01 D7 31 78 DB 58'],
      ['02 01 32 07 80 05 00 2A 20', '02 D7 02 D4 22 78 8A B6 03'],
    ].map(([plain, wire]) => ({ plain: hexBytes(plain), wire: hexBytes(wire) }));
    for (const v of vectors) expect(encrypt(v.plain)).toEqual(v.wire);
    const file = writeCapture(
      space.work,
      'vectors',
      vectors.map((v, i) => ({ t: i / 10, fromServer: v.plain[0] === 1, client: 1, bytes: v.wire })),
    );
    const lua53 = Number(space.wireshark.lua.split('.')[1]) >= 3 || Number(space.wireshark.lua.split('.')[0]) > 5;
    const libraries = [[], ['bitlib=bit32'], ['bitlib=bit'], ['bitlib=arith'], ...(lua53 ? [['bitlib=native']] : [])];
    for (const scriptArgs of libraries) {
      const sources = dataSources(file, { ...space.options, scriptArgs });
      expect(
        sources.map((s) => [...s.keys()]),
        scriptArgs.join(),
      ).toEqual(vectors.map(() => ['Frame', 'Decrypted BC']));
      expect(
        sources.map((s) => s.get('Decrypted BC')),
        scriptArgs.join(),
      ).toEqual(vectors.map((v) => v.plain));
    }
    const frames = dissect(file, space.options);
    vectors.forEach((v, i) => checkFrame(frames[i], v.wire, v.plain, 'encrypted', []));
  });

  it('on Lua before 5.3, bitlib=native is refused with a clear error instead of a syntax error', () => {
    const file = writeCapture(space.work, 'native', [
      { t: 0, fromServer: true, client: 1, bytes: hexBytes('01 D7 31 78 DB 58') },
    ]);
    const lua53 = Number(space.wireshark.lua.split('.')[1]) >= 3;
    if (lua53) {
      expect(dissect(file, { ...space.options, scriptArgs: ['bitlib=native'] })[0].bc!.fields['bc.ok']).toEqual(['1']);
    } else {
      expect(() => dissect(file, { ...space.options, scriptArgs: ['bitlib=native'] })).toThrow(
        `bitlib=native is not available in Lua ${space.wireshark.lua.split('.').slice(0, 2).join('.')}`,
      );
    }
  });

  it('installs as a personal plugin: tshark finds it in ~/.local/lib/wireshark/plugins without -X', () => {
    const pluginHome = join(space.work, 'plugin-home');
    const folder = join(pluginHome, '.local', 'lib', 'wireshark', 'plugins');
    mkdirSync(folder, { recursive: true });
    copyFileSync(DISSECTOR, join(folder, 'bcsim.lua'));
    const file = writeCapture(space.work, 'plugin', [
      { t: 0, fromServer: false, client: 1, bytes: hexBytes('02 D7 02 D4 22 78 8A B6 03') },
    ]);
    const frames = dissect(file, { home: pluginHome, load: 'plugin' });
    checkFrame(
      frames[0],
      hexBytes('02 D7 02 D4 22 78 8A B6 03'),
      hexBytes('02 01 32 07 80 05 00 2A 20'),
      'encrypted',
      [],
    );
  });
});
