// `bcsim decode` names a checksum answer's hashes (game opcode 0x21), in text and
// --json: the captured stock client's round-0 answer, a fragment that cannot be
// read alone, and an answer that does not parse.
import { describe, expect, it } from 'vitest';
import { encodeDatagram, encrypt, toHex } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { cli } from '../support/cli.js';
import { dataMsg, hex, okBytes } from '../codec/helpers.js';

/** The captured round-0 answer of the stock client (docs/sources.md R1). */
const ROUND0 = hex('21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00');

const datagram = (...messages: Message[]) => okBytes(encodeDatagram({ peerId: 0x02, messages }));

describe('bcsim decode: a checksum answer', () => {
  const answer = datagram(dataMsg({ reliable: true, seq: 1, payload: ROUND0 }));

  it('names its round, the reference and directory hashes, and each file', async () => {
    const r = await cli(['decode', toHex(answer)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      [
        '         payload: 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00',
        '         checksum answer (opcode 0x21), round 0: ref 0x7E0CE243, dir 0x4DAFCB2F, 1 file',
        '           file name 0x373EB677 content 0xF8A0A768',
      ].join('\n'),
    );
  });

  it('as the wire carries it, encrypted, too', async () => {
    const r = await cli(['decode', toHex(encrypt(answer))]);
    expect(r.stdout).toContain('reading: encrypted');
    expect(r.stdout).toContain('file name 0x373EB677 content 0xF8A0A768');
  });

  it('--json gives the hashes under checksumAnswer', async () => {
    const r = await cli(['decode', '--json', toHex(answer)]);
    const j = JSON.parse(r.stdout);
    expect(j.messages[0].checksumAnswer).toEqual({
      round: 0,
      refHash: '0x7E0CE243',
      dirHash: '0x4DAFCB2F',
      files: [{ nameHash: '0x373EB677', contentHash: '0xF8A0A768' }],
      subdirs: [],
      fileCount: 1,
      subdirCount: 0,
      filesNotListed: 0,
    });
  });

  it('a fragment is only a piece: the first one says so, a later one cannot tell', async () => {
    const first = datagram(
      dataMsg({
        reliable: true,
        seq: 2,
        fragment: true,
        fragIndex: 0,
        fragCount: 3,
        payload: Uint8Array.of(0x21, 2, 7),
      }),
    );
    const text = await cli(['decode', toHex(first)]);
    expect(text.stdout).toContain(
      "         fragment 0 of 3 of a checksum answer (opcode 0x21, round 2): its hashes need every fragment (bcsim analyze puts a capture's together)",
    );
    const json = JSON.parse((await cli(['decode', '--json', toHex(first)])).stdout);
    expect(json.messages[0].checksumAnswer).toEqual({ fragment: 0, fragments: 3, round: 2 });
    const later = datagram(
      dataMsg({ reliable: true, seq: 2, fragment: true, fragIndex: 1, payload: Uint8Array.of(0x21, 2, 7) }),
    );
    expect((await cli(['decode', toHex(later)])).stdout).not.toContain('checksum answer');
    expect(JSON.parse((await cli(['decode', '--json', toHex(later)])).stdout).messages[0]).not.toHaveProperty(
      'checksumAnswer',
    );
  });

  it('one that does not parse says where and why', async () => {
    const cut = datagram(dataMsg({ reliable: true, seq: 1, payload: ROUND0.subarray(0, 8) }));
    const r = await cli(['decode', toHex(cut)]);
    expect(r.code).toBe(0); // the datagram is well formed; its game payload is not
    expect(r.stdout).toContain(
      '         checksum answer (opcode 0x21) that does not parse: offset 6: the directory hash needs 4 bytes, 2 remain',
    );
    const json = JSON.parse((await cli(['decode', '--json', toHex(cut)])).stdout);
    expect(json.messages[0].checksumAnswer).toEqual({
      error: { offset: 6, reason: 'the directory hash needs 4 bytes, 2 remain' },
    });
  });

  it('other game messages get nothing of it', async () => {
    const other = datagram(dataMsg({ reliable: true, seq: 1, payload: Uint8Array.of(0x20, 0, 1, 0, 0x73) }));
    expect((await cli(['decode', toHex(other)])).stdout).not.toContain('checksum');
  });
});
