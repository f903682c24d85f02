import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const SERVER_PACKET =
  '01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20';

describe('bcsim decode', () => {
  it('annotates every message: offset, type, flags, seq, payload', async () => {
    const r = await cli(['decode', SERVER_PACKET]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('datagram: 35 bytes, peer 0x01 (server), 2 messages');
    expect(r.stdout).toMatch(/@2 +connectAck \(0x03\) reliable\+ordered seq=0 len=6 flags_len=0xC006/);
    expect(r.stdout).toMatch(/@8 +game reliable seq=0 len=27 flags_len=0x801B/);
    expect(r.stdout).toContain('payload: 20 00 08 00 73 63');
  });

  it('accepts hex split over several arguments and without spaces', async () => {
    const joined = await cli(['decode', SERVER_PACKET.replace(/ /g, '')]);
    const split = await cli(['decode', ...SERVER_PACKET.split(' ')]);
    expect(split.stdout).toBe(joined.stdout);
    expect(split.code).toBe(0);
  });

  it('--json prints exactly one object with the documented keys', async () => {
    const r = await cli(['decode', '--json', '01 03 32 9C A1 02 00 00 03', '00'.repeat(405), '01 02 00 01 01']);
    expect(r.code).toBe(1); // 1 + 2 + 412 + 5 bytes but msg_count says 3: missing a message
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual([
      'ok',
      'length',
      'peerId',
      'messageCount',
      'messages',
      'error',
      'deviations',
      'stockHex',
      'reading',
      'otherReadingParses',
    ]);
    expect(j.ok).toBe(false);
    expect(j.messages[0]).toMatchObject({
      offset: 2,
      type: 0x32,
      name: 'game',
      size: 412,
      reliable: true,
      fragment: true,
      seq: 2,
      fragIndex: 0,
      fragCount: 3,
    });
    expect(j.messages[1]).toEqual({
      offset: 414,
      type: 1,
      name: 'ack',
      size: 5,
      seq: 2,
      flags: 1,
      fragment: true,
      fragIndex: 1,
      lowType: false,
    });
    expect(j.error).toEqual({ offset: 419, reason: expect.stringContaining('msg_count is 3') });
  });

  it('exit 0 for a good datagram in --json too', async () => {
    const r = await cli(['decode', '--json', '02 01 01 02 00 01 02']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).error).toBeNull();
  });

  it('exit 2 with one line and no stack for input that is not hex', async () => {
    for (const bad of [['zz'], ['0'], ['01', 'G2']]) {
      const r = await cli(['decode', ...bad]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      // One word that is not hex may be a capture's name: the line says it is neither.
      expect(r.stderr).toMatch(
        /^bcsim: decode(: input is not hex at character \d+: | \S+: neither hex \(at character \d+: )/,
      );
      expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    }
  });

  it('unknown flags are usage errors (exit 2)', async () => {
    const r = await cli(['decode', '--bogus', '00']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--bogus'");
  });
});

describe('bcsim decode: encrypted datagrams (docs/sources.md 22)', () => {
  it('reads a wire datagram as encrypted on its own and says so', async () => {
    const r = await cli(['decode', '01', 'D7', '31', '78', 'DB', '58']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('reading: encrypted: decrypted with AlbyRules (as plaintext it does not parse)');
    expect(r.stdout).toMatch(/ack seq=2 flags=0x02 \(low-type\)/);
  });

  it('keeps plaintext when only plaintext parses, and --encrypted forces the other reading', async () => {
    const plain = await cli(['decode', '01 01 01 02 00 02', '--json']);
    expect(JSON.parse(plain.stdout)).toMatchObject({ ok: true, reading: 'plaintext', otherReadingParses: false });
    const forced = await cli(['decode', '--encrypted', '02 D7 02 D4 22 78 8A B6 03', '--json']);
    expect(JSON.parse(forced.stdout)).toMatchObject({
      ok: true,
      reading: 'encrypted',
      otherReadingParses: null,
      decryptedHex: '02 01 32 07 80 05 00 2A 20',
    });
    expect(JSON.parse(forced.stdout).messages[0]).toMatchObject({ type: 0x32, seq: 5, payloadHex: '2A20' });
  });

  it('--encrypted with --plain is a usage error', async () => {
    const r = await cli(['decode', '--encrypted', '--plain', '01 00']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bcsim: decode: give --encrypted or --plain, not both\n');
  });
});
